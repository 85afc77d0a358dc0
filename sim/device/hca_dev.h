/* hca_dev.h — the HCA as a whole: the firmware core running the firmware
 * ELF, the command mailbox (HCR), the firmware DMA, the host interrupt, and
 * the device engine (dev_engine.h: RTL or model, chosen at creation), on one
 * device clock, over one bus.
 *
 * Memory: the engine's DMA and the firmware DMA reach memory through the
 * device's bus map (busmap.h): host memory behind every address, plus the
 * windows mapped with hca_dev_map_window() (peer memory).
 *
 * What happened is told on the device's event log (hca_dev_log()): the
 * engine's DMA, packets and completions, and the key validity changes the
 * device learns from the mailbox and the firmware's event service. The
 * protection checker runs in every device, subscribed to that log. Breaches
 * never stop the device.
 *
 * The host side: hca_dev_host() is the driver's boundary (driver/hca_host.h):
 * BAR0 (HCR at HOST_HCR_OFFSET, doorbells at HOST_DB_OFFSET, the interrupt
 * block at HOST_IRQ_OFFSET), device-visible host memory, and waiting. Time
 * advances only in hca_dev_step() and the host's wait; all times are device
 * cycles.
 */
#ifndef HCA_DEV_H
#define HCA_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "dev_engine.h"
#include "evlog.h"
#include "hca_host.h"
#include "hostmem.h"
#include "protcheck.h"
#include "rv32.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hca_dev hca_dev_t;

typedef struct hca_dev_config {
    dev_engine_kind_t engine; /**< DEV_ENGINE_RTL or DEV_ENGINE_MODEL (dev_engine.h) */
    const char *firmware;    /**< firmware ELF; NULL: hca_dev_default_firmware() */
    xu_params_t tables;      /**< all 0: default table sizes */
    bus_timing_t host;       /**< DMA timing of host memory; all 0: bus_default_timing() */
    rv32_costs_t core;       /**< all 0: rv32_default_costs() */
    uint32_t link_latency;   /**< cycles a packet travels; 0: DEV_ENGINE_LINK_LATENCY_DEFAULT */
    uint32_t link_bytes_per_cycle; /**< link bandwidth; 0: DEV_ENGINE_LINK_BYTES_PER_CYCLE_DEFAULT */
    int no_peer_invalidation; /**< 1: built without peer invalidation (strap; INVALIDATE_MKEY refused) */
    unsigned max_indirection; /**< the KLM walk's depth, 1..HCA_MAX_INDIRECTION (strap); 0: the maximum */
} hca_dev_config_t;

/** Path of the default firmware image: beside the running executable
 *  (<exe dir>/../firmware/hcafw.elf in a build tree, else
 *  <exe dir>/../share/hcasim/hcafw.elf in an install prefix), else the image
 *  of the tree this was built in. */
const char *hca_dev_default_firmware(void);

/** Build a device over host memory mem (borrowed), load and start its firmware.
 *  0; -ENOEXEC when the firmware image is refused; another negative errno.
 *  On error err (may be NULL) receives the reason, e.g. the loader's
 *  "file: segment 2: reason". */
int hca_dev_create(hca_dev_t **out, const hca_dev_config_t *cfg, hostmem_t *mem, char *err, size_t errlen);
/** As hca_dev_create, over the memory mem (copied; its context borrowed) as
 *  the bus map's fallback: a platform's bus (the SystemC wrapper's DMA
 *  initiator). hca_dev_host()'s mem_alloc then answers -ENOMEM (the platform
 *  allocates) and its mem_read/mem_write go to the device's bus (mem and
 *  its windows). */
int hca_dev_create_on_bus(hca_dev_t **out, const hca_dev_config_t *cfg, bus_t mem, char *err, size_t errlen);
void hca_dev_destroy(hca_dev_t *dev);

/** Advance the whole device by n cycles. */
void hca_dev_step(hca_dev_t *dev, uint64_t n);
uint64_t hca_dev_cycle(const hca_dev_t *dev);

/** Host MMIO into BAR0: HOST_HCR_OFFSET + HCA_HCR_* (the mailbox),
 *  HOST_DB_OFFSET + HCA_DB_* (doorbells: write-only, read 0; queued to the
 *  engine) and HOST_IRQ_OFFSET + HCA_HOST_IRQ_* (the interrupt block). Takes
 *  no device time. Unknown offsets read 0 / ignore writes and return -EINVAL;
 *  a doorbell returns the engine's answer (-EOPNOTSUPP on an engine that
 *  serves no queues, -ENOSPC when its doorbell queue is full). */
int hca_dev_mmio_read(hca_dev_t *dev, uint32_t offset, uint32_t *val);
int hca_dev_mmio_write(hca_dev_t *dev, uint32_t offset, uint32_t val);
/** 1 while the host interrupt line is high (CAUSE & MASK != 0). */
int hca_dev_host_irq(const hca_dev_t *dev);

/** The driver's boundary to this device (driver/hca_host.h): BAR0 as
 *  hca_dev_mmio_*, device-visible memory in the host memory given at
 *  creation (see hca_dev_create_on_bus), waits that step the device.
 *  Valid while the device lives. */
hca_host_t hca_dev_host(hca_dev_t *dev);

/** The engine's name ("rtl", "model"). */
const char *hca_dev_engine_name(const hca_dev_t *dev);

/** Route the device's accesses to [base, base + size) to target instead of
 *  host memory (busmap_map): a peer device's memory. */
int hca_dev_map_window(hca_dev_t *dev, uint64_t base, uint64_t size, bus_t target);
int hca_dev_unmap_window(hca_dev_t *dev, uint64_t base);

/** The device's event log: subscribe to learn what happened (evlog.h). */
evlog_t *hca_dev_log(hca_dev_t *dev);

/** Key-check probes through the device's translation unit (an external client
 *  of its arbiter), on either engine: as xu_submit, xu_pending, xu_collect,
 *  xu_accept_cycle and xu_set_backpressure. */
int hca_dev_xlate_submit(hca_dev_t *dev, const xu_req_t *req);
size_t hca_dev_xlate_pending(const hca_dev_t *dev);
int hca_dev_xlate_collect(hca_dev_t *dev, xu_seg_t *seg);
uint64_t hca_dev_xlate_accept_cycle(const hca_dev_t *dev, uint64_t n);
int hca_dev_xlate_backpressure(hca_dev_t *dev, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed);

/** Waves of the engine for cycles [from, to) (to = UINT64_MAX: until close);
 *  -ENOTSUP on an engine without waves. */
int hca_dev_trace_open(hca_dev_t *dev, const char *path, uint64_t from, uint64_t to);
/** Waves of n windows into one FST (spans: n [from, to) pairs, sorted,
 *  disjoint; the file holds their cycles only). 0, -EINVAL, -ENOTSUP. */
int hca_dev_trace_spans(hca_dev_t *dev, const char *path, const uint64_t *spans, size_t n);
void hca_dev_trace_close(hca_dev_t *dev);
/** Variables (trace_vars.h) the caller writes beside the engine's signals in
 *  every later wave file (docs/waves.md "Transaction names"); NULL: none.
 *  0, -EINVAL, -ENOTSUP on an engine without waves. */
int hca_dev_trace_vars(hca_dev_t *dev, const trace_vars_t *vars);
/** Where the firmware core is: its pc, and 1 when it runs (0: asleep in WFI,
 *  halted or trapped). For naming the firmware function in the waves. */
uint32_t hca_dev_fw_pc(const hca_dev_t *dev, int *running);

/** The protection checker (subscribed to the log): its statistics and breaches. */
protcheck_t *hca_dev_protcheck(hca_dev_t *dev);
/** Breaches of the protection invariants so far; their lines ("cycle C key K
 *  addr A: reason") into buf (may be NULL), NUL-terminated, cut to len. */
uint64_t hca_dev_violations(const hca_dev_t *dev, char *buf, size_t len);
/** DMA and link counters of the engine. */
void hca_dev_get_stats(const hca_dev_t *dev, dev_engine_stats_t *st);
/** Device cycles passed without being stepped: nothing could happen in
 *  them (the firmware asleep, the engine quiet; dev_engine.h). On the RTL
 *  engine 0 with HCASIM_RTL_SKIP=0 (sim/verilated/core_rtl.cpp). */
uint64_t hca_dev_skipped_cycles(const hca_dev_t *dev);
/** Cycles from now in which nothing can happen (no DMA, packet, completion,
 *  interrupt or firmware step): a waiter may step them at once and lands
 *  exactly where stepping one at a time would have found the next event.
 *  0 when the next cycle may act (always on the RTL engine). */
uint64_t hca_dev_quiet_cycles(const hca_dev_t *dev);
/** Everything the firmware printed on its console so far (NUL-terminated). */
const char *hca_dev_console(const hca_dev_t *dev);
/** 0 while the firmware runs; -EFAULT when it trapped or halted, with the
 *  reason in why (may be NULL). */
int hca_dev_fw_health(const hca_dev_t *dev, char *why, size_t len);
/** Firmware instructions retired, and core cycles spent executing (not asleep) up to the device's cycle. */
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
    uint64_t seq_programs;      /**< port-sequencer programs started (regs fseq) */
    uint64_t seq_accesses;      /**< engine register accesses they made (not in port_accesses) */
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
