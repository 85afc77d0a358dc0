/* fuzz_live.h — what the harnesses over a live device share (fuzz_mailbox.c,
 * fuzz_wqe.c): the device booted under the reference driver, the liveness
 * oracle, and the firmware's executed words as libFuzzer extra counters. */
#ifndef FUZZ_LIVE_H
#define FUZZ_LIVE_H

#include "hca_dev.h"
#include "hcadrv.h"

typedef struct fuzz_live {
    hostmem_t *mem;
    hca_dev_t *dev;
    hcadrv_t *drv;
    hca_host_t host;
} fuzz_live_t;

/** Print "fuzz NAME: what: rc (errno text)" and abort (a finding). */
void fuzz_die(const char *what, int rc) __attribute__((noreturn));
/** A device (engine: HCASIM_FUZZ_ENGINE=rtl, else the model) under the
 *  driver, booted (QUERY_DEVICE answered), its firmware profiled. */
void fuzz_live_open(fuzz_live_t *l);
void fuzz_live_close(fuzz_live_t *l);
/** Abort unless the firmware runs and the protection checker saw no breach. */
void fuzz_live_check(const fuzz_live_t *l, const char *after);
/** Around one input: the firmware words executed in between become coverage. */
void fuzz_fw_cov_begin(const fuzz_live_t *l);
void fuzz_fw_cov_end(const fuzz_live_t *l);

#endif /* FUZZ_LIVE_H */
