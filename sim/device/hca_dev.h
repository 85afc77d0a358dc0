/* hca_dev.h — the HCA as a whole: firmware core running the firmware ELF,
 * command mailbox (HCR), firmware DMA over host memory, and the engine, all
 * on one device clock.
 *
 * Engines:
 *   XU_ENGINE_RTL    the device core rtl/hca_core.sv (WQE engine, responder,
 *                    CQ writer and translation unit) in its harness
 *                    (sim/core.h: DMA block, packet buffers, loopback link,
 *                    doorbells); queues and work requests are served.
 *   XU_ENGINE_MODEL  the C model of the translation unit only: there is no C
 *                    model of the WQE engine yet, so the engine's context
 *                    port answers every command BAD_OP (the firmware reports
 *                    the queue commands unsupported, the driver -EOPNOTSUPP)
 *                    and doorbells are refused.
 *
 * The protection checker (protcheck.h) runs in every device: it sees every
 * DMA request of the engine, every packet, and the mailbox's DESTROY_MKEY /
 * CREATE_MKEY answers; other invalidations are told through
 * hca_dev_protcheck(). Breaches never stop the device.
 *
 * The host side reaches the device only through hca_dev_mmio_read/write
 * (BAR0: HCR at HOST_HCR_OFFSET, doorbells at HOST_DB_OFFSET) and host memory,
 * as a kernel driver would. Time advances only in hca_dev_step(); all times
 * are device cycles.
 */
#ifndef HCA_DEV_H
#define HCA_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "hostmem.h"
#include "protcheck.h"
#include "rv32.h"
#include "xu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_dev hca_dev_t;

typedef struct hca_dev_config {
    xu_engine_kind_t engine; /**< RTL (the device core) or model (translation unit only) */
    const char *firmware;    /**< firmware ELF; NULL: hca_dev_default_firmware() */
    xu_params_t tables;      /**< all 0: default table sizes */
    hostmem_timing_t host;   /**< all 0: hostmem_default_timing() */
    rv32_costs_t core;       /**< all 0: rv32_default_costs() */
    uint32_t link_latency;   /**< cycles a packet travels; 0: CORE_LINK_LATENCY_DEFAULT */
    uint32_t link_bytes_per_cycle; /**< link bandwidth; 0: CORE_LINK_BYTES_PER_CYCLE_DEFAULT */
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

/** Host MMIO into BAR0: HOST_HCR_OFFSET + HCA_HCR_* (the mailbox) and
 *  HOST_DB_OFFSET + HCA_DB_* (doorbells: write-only, read 0; queued to the
 *  engine, which takes them one a cycle). Takes no device time. Unknown
 *  offsets read 0 / ignore writes and return -EINVAL; a doorbell returns
 *  -EOPNOTSUPP on the model engine (no WQE engine) and -ENOSPC when
 *  CORE_DB_QUEUE_DEPTH doorbells wait. */
int hca_dev_mmio_read(hca_dev_t *dev, uint32_t offset, uint32_t *val);
int hca_dev_mmio_write(hca_dev_t *dev, uint32_t offset, uint32_t val);

/** The model engine's translation unit; NULL on the RTL engine, whose
 *  translation unit sits inside the core: use the hca_dev_xlate_* probes. */
xu_t *hca_dev_xu(hca_dev_t *dev);
/** The RTL engine's core harness (DMA block, link, counters); NULL on the model engine. */
core_t *hca_dev_core(hca_dev_t *dev);

/** Key-check probes through the device's translation unit (an external client
 *  of its arbiter on the RTL engine), on either engine: as xu_submit,
 *  xu_pending, xu_collect, xu_accept_cycle and xu_set_backpressure. */
int hca_dev_xlate_submit(hca_dev_t *dev, const xu_req_t *req);
size_t hca_dev_xlate_pending(const hca_dev_t *dev);
int hca_dev_xlate_collect(hca_dev_t *dev, xu_seg_t *seg);
uint64_t hca_dev_xlate_accept_cycle(const hca_dev_t *dev, uint64_t n);
int hca_dev_xlate_backpressure(hca_dev_t *dev, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed);

/** Waves of the engine for cycles [from, to) (to = UINT64_MAX: until close);
 *  -ENOTSUP on an engine without waves. */
int hca_dev_trace_open(hca_dev_t *dev, const char *path, uint64_t from, uint64_t to);
void hca_dev_trace_close(hca_dev_t *dev);

/** The protection checker: feed it invalidations the device cannot see
 *  itself (LOCAL_INV completions, peer invalidations), read its statistics. */
protcheck_t *hca_dev_protcheck(hca_dev_t *dev);
/** Breaches of the protection invariants so far; their lines ("cycle C key K
 *  addr A: reason") into buf (may be NULL), NUL-terminated, cut to len. */
uint64_t hca_dev_violations(const hca_dev_t *dev, char *buf, size_t len);
/** DMA and link counters of the engine (all 0 on the model engine). */
void hca_dev_get_stats(const hca_dev_t *dev, core_stats_t *st);
/** Everything the firmware printed on its console so far (NUL-terminated). */
const char *hca_dev_console(const hca_dev_t *dev);
/** 0 while the firmware runs; -EFAULT when it trapped or halted, with the
 *  reason in why (may be NULL). */
int hca_dev_fw_health(const hca_dev_t *dev, char *why, size_t len);
/** Firmware instructions retired and core cycles spent executing (not asleep). */
uint64_t hca_dev_fw_instret(const hca_dev_t *dev);
uint64_t hca_dev_fw_busy_cycles(const hca_dev_t *dev);

/** Where the firmware core's time went, since the device was created: a
 *  profile for firmware work (differences of two snapshots give one
 *  operation's share). */
typedef struct hca_dev_fw_stats {
    uint64_t instret;           /**< instructions retired */
    uint64_t busy_cycles;       /**< core cycles not asleep in WFI */
    uint64_t port_accesses;     /**< answered accesses to the engine's registers (fwp, ctx, evt) */
    uint64_t port_stall_cycles; /**< busy cycles stalled waiting for those answers */
    uint64_t fdma_transfers;    /**< firmware DMA transfers started */
    uint64_t fdma_cycles;       /**< device cycles they took (the core polls or works meanwhile) */
} hca_dev_fw_stats_t;
void hca_dev_get_fw_stats(const hca_dev_t *dev, hca_dev_fw_stats_t *st);

/** From now on, count every device cycle the firmware core is not asleep
 *  against the instruction it is at (executing or stalled): a cycle-weighted
 *  profile (hcasim run --fw-profile). 0, or -ENOMEM. */
int hca_dev_fw_profile_start(hca_dev_t *dev);
/** The profile: cycles at RAM word i (pc = FW_RAM_BASE + 4 i), *words
 *  entries; NULL when not started. */
const uint64_t *hca_dev_fw_profile(const hca_dev_t *dev, size_t *words);
/** The firmware image the device runs (its path). */
const char *hca_dev_firmware(const hca_dev_t *dev);

#ifdef __cplusplus
}
#endif
#endif /* HCA_DEV_H */
