/* hca_dev.h — the HCA as a whole: translation unit (RTL or model), firmware
 * core running the firmware ELF, command mailbox (HCR) and firmware DMA over
 * host memory, all on one device clock.
 *
 * The host side reaches the device only through hca_dev_mmio_read/write
 * (BAR0) and host memory, as a kernel driver would. Time advances only in
 * hca_dev_step(); all times are device cycles.
 */
#ifndef HCA_DEV_H
#define HCA_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "hostmem.h"
#include "rv32.h"
#include "xu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_dev hca_dev_t;

typedef struct hca_dev_config {
    xu_engine_kind_t engine; /**< translation unit: RTL or model */
    const char *firmware;    /**< firmware ELF; NULL: hca_dev_default_firmware() */
    xu_params_t tables;      /**< all 0: default table sizes */
    hostmem_timing_t host;   /**< all 0: hostmem_default_timing() */
    rv32_costs_t core;       /**< all 0: rv32_default_costs() */
} hca_dev_config_t;

/** Path of the firmware image `make` builds. */
const char *hca_dev_default_firmware(void);

/** Build a device over host memory mem (borrowed), load and start its firmware.
 *  0; -ENOEXEC when the firmware image is refused; another negative errno.
 *  On error err (may be NULL) receives the reason, e.g. the loader's
 *  "file: segment 2: reason". */
int hca_dev_create(hca_dev_t **out, const hca_dev_config_t *cfg, hostmem_t *mem, char *err, size_t errlen);
void hca_dev_destroy(hca_dev_t *dev);

/** Advance the whole device by n cycles. */
void hca_dev_step(hca_dev_t *dev, uint64_t n);
uint64_t hca_dev_cycle(const hca_dev_t *dev);

/** Host MMIO into BAR0 (HOST_HCR_OFFSET + HCA_HCR_*). Takes no device time.
 *  Unknown offsets read 0 / ignore writes and return -EINVAL. */
int hca_dev_mmio_read(hca_dev_t *dev, uint32_t offset, uint32_t *val);
int hca_dev_mmio_write(hca_dev_t *dev, uint32_t offset, uint32_t val);

/** The translation unit, for issuing key-checked requests directly. */
xu_t *hca_dev_xu(hca_dev_t *dev);
/** Everything the firmware printed on its console so far (NUL-terminated). */
const char *hca_dev_console(const hca_dev_t *dev);
/** 0 while the firmware runs; -EFAULT when it trapped or halted, with the
 *  reason in why (may be NULL). */
int hca_dev_fw_health(const hca_dev_t *dev, char *why, size_t len);
/** Firmware instructions retired and core cycles spent executing (not asleep). */
uint64_t hca_dev_fw_instret(const hca_dev_t *dev);
uint64_t hca_dev_fw_busy_cycles(const hca_dev_t *dev);

#ifdef __cplusplus
}
#endif
#endif /* HCA_DEV_H */
