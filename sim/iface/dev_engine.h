/* dev_engine.h — the device engine: the whole device core as the device
 * (sim/device/hca_dev.c) drives it. One interface, two implementations,
 * picked once, by dev_engine_get(), when the device is created:
 *
 *   rtl    rtl/hca_core.sv (WQE engine, responder, CQ writer, contexts, event
 *          queue, translation unit), Verilated, in its harness
 *          (sim/harness/core.c: DMA block, packet buffers, loopback link,
 *          doorbells, firmware port, key-check probes).
 *   model  model/hca_core.c, the C model of the same blocks (one C file per
 *          RTL module, cycle for cycle at its ports), in the same harness.
 *   lockstep  both cores in the one harness: the RTL drives it, the model
 *          is given the same inputs every cycle and the first output pin
 *          that differs is reported (a debugging engine: as slow as rtl).
 *
 * What the engine is given (dev_engine_env_t): the bus its DMA reaches and
 * the event log it reports to. It never sees the firmware core, the mailbox or
 * the host: the device owns those and reaches the engine only through these
 * calls.
 *
 * Timing contract (device cycles; the device owns the clock):
 *   - step() runs exactly one cycle; the device calls it once per cycle, after
 *     the firmware core has caught up to that cycle.
 *   - quiet_until() says the engine will not change state, answer the
 *     firmware port, raise fw_irq or touch the bus before that cycle unless
 *     given new input (doorbell, firmware access, probe). The device may
 *     then advance `now` past the quiet cycles with skip() instead of stepping
 *     them (only while the firmware core sleeps). Both engines return the
 *     cycle of their next timed event (a DMA completion, a packet's arrival,
 *     a timer; the RTL's core from its quiet_o and wake_o pins, with time an
 *     input), which is how an idle device runs many times faster.
 *   - Results (DMA, packets, completions) are reported on the event log in
 *     the cycle they happen, so both engines' logs can be compared event by
 *     event.
 *
 * All int-returning calls return 0 or a negative errno and never abort on bad
 * arguments.
 */
#ifndef DEV_ENGINE_H
#define DEV_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "evlog.h"
#include "trace_vars.h"
#include "xu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The implementations. */
typedef enum dev_engine_kind {
    DEV_ENGINE_RTL = 0,
    DEV_ENGINE_MODEL = 1,
    DEV_ENGINE_LOCKSTEP = 2, /**< rtl driving the device, model fed the same pins and compared each cycle */
    DEV_ENGINE_KINDS
} dev_engine_kind_t;

#define DEV_ENGINE_LINK_LATENCY_DEFAULT 100u /**< cycles a packet travels */
#define DEV_ENGINE_LINK_BYTES_PER_CYCLE_DEFAULT 16u
#define DEV_ENGINE_DMA_OUTSTANDING_DEFAULT 16u

/** How the engine is built; 0 in any field: its default. */
typedef struct dev_engine_config {
    xu_params_t tables;            /**< MPT/MTT sizes; 0: HCA_*_ENTRIES_DEFAULT */
    bus_timing_t dma;              /**< DMA timing; bytes_per_cycle 0: bus_default_timing() */
    uint32_t link_latency;         /**< cycles; 0: DEV_ENGINE_LINK_LATENCY_DEFAULT */
    uint32_t link_bytes_per_cycle; /**< 0: DEV_ENGINE_LINK_BYTES_PER_CYCLE_DEFAULT */
    uint32_t dma_max_outstanding;  /**< 0: DEV_ENGINE_DMA_OUTSTANDING_DEFAULT */
} dev_engine_config_t;

/** What the engine reaches: both borrowed, for the engine's lifetime. */
typedef struct dev_engine_env {
    bus_t dma;         /**< memory its DMA reads and writes */
    const evlog_t *log; /**< where it reports (may be NULL) */
} dev_engine_env_t;

/** Counters since creation or reset. */
typedef struct dev_engine_stats {
    uint64_t dma_reqs;        /**< DMA requests accepted */
    uint64_t dma_rd_bytes;    /**< bytes read from memory */
    uint64_t dma_wr_bytes;    /**< bytes written to memory */
    uint64_t dma_bus_errs;    /**< requests answered err for a bus error */
    uint64_t dma_bad_reqs;    /**< malformed requests (engine bugs) answered err */
    uint64_t dma_busy_cycles; /**< cycles the data channel moved bytes */
    uint64_t pkts;            /**< packets sent on the link */
    uint64_t pkt_bytes;       /**< their payload bytes */
    uint64_t doorbells;       /**< doorbells taken */
    uint64_t fence_waits;     /**< times the translation unit's fence (INVALIDATE, FENCE) had to wait for
                                   in-flight requests (core pin fence_wait rose: xu_fw_port entered ST_FENCE) */
    uint64_t drain_waits;     /**< context DRAINs that had to wait for key-checked DMA in flight (pin
                                   drain_wait rose: STATUS.busy after the command) */
} dev_engine_stats_t;

/** fw_post's write argument for a posted write: answered (fw_poll 1, *rdata
 *  0) once the engine has taken it. Every block of the port answers an
 *  access exactly one cycle after taking it, in order, so the next access
 *  may be taken in the cycle the write's answer (which carries nothing)
 *  comes; the port drops that answer. */
#define DEV_FW_WRITE_POSTED 2

typedef struct dev_engine_ops {
    const char *name; /**< "rtl", "model", "lockstep" */
    /** 0; -EINVAL (bad sizes), -ENOTSUP (sizes this engine was not built
     *  for), -ENOMEM. The new engine is reset; its clock is at cycle 0. */
    int (*create)(void **eng, const dev_engine_config_t *cfg, const dev_engine_env_t *env);
    void (*destroy)(void *eng);
    /** Run one cycle. */
    void (*step)(void *eng);
    /** See "Timing contract": the first cycle >= the next one to run in
     *  which the engine may act on its own (the next one: not quiet). */
    uint64_t (*quiet_until)(const void *eng);
    /** Jump the clock to cycle `to` without stepping (only up to quiet_until). */
    void (*skip)(void *eng, uint64_t to);

    /** Host doorbell: off = HCA_DB_SQ / HCA_DB_RQ / HCA_DB_CQ. -EINVAL for
     *  another offset, -ENOSPC when the doorbell queue is full, -EOPNOTSUPP
     *  when the engine serves no queues. */
    int (*doorbell)(void *eng, uint32_t off, uint32_t val);

    /** The firmware port: off = firmware address - HCA_DEVREG_BASE. post
     *  starts one access (-EINVAL: an offset the engine has no register at,
     *  the firmware sees a bus fault; -EBUSY: one is in flight); poll returns
     *  1 with *rdata once answered, 0 while in flight, -ENOENT when none.
     *  write: 0 a read, 1 a write, DEV_FW_WRITE_POSTED a posted write. */
    int (*fw_post)(void *eng, int write, uint32_t off, uint32_t wdata);
    int (*fw_poll)(void *eng, uint32_t *rdata);
    /** The engine's fw_irq output (1 while a memory-management event waits
     *  for the firmware): the address of a pin the device reads every cycle,
     *  valid for the engine's life (a read, not a call, on the per-cycle path). */
    const uint8_t *(*fw_irq_pin)(void *eng);

    /** Key-check probes (external translation client): as xu_submit,
     *  xu_pending, xu_collect, xu_accept_cycle, xu_set_backpressure. */
    int (*probe_submit)(void *eng, const xu_req_t *req);
    size_t (*probe_pending)(const void *eng);
    int (*probe_collect)(void *eng, xu_seg_t *seg);
    uint64_t (*probe_accept_cycle)(const void *eng, uint64_t n);
    int (*probe_backpressure)(void *eng, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed);

    /** Waves of cycles [from, to) (to = UINT64_MAX: until close) to an FST
     *  file; -ENOTSUP for an engine without waves. */
    int (*trace_open)(void *eng, const char *path, uint64_t from, uint64_t to);
    /** Waves of several windows into one FST: n [from, to) pairs in spans[2n],
     *  sorted and disjoint; -ENOTSUP for an engine that cannot pause its dump. */
    int (*trace_spans)(void *eng, const char *path, const uint64_t *spans, size_t n);
    void (*trace_close)(void *eng);
    void (*get_stats)(const void *eng, dev_engine_stats_t *st);
    /** Optional (NULL: none): the caller's variables (trace_vars.h) written
     *  beside the engine's signals in every later file (NULL: none). 0 or
     *  -ENOTSUP (an engine without waves). */
    int (*trace_vars)(void *eng, const trace_vars_t *vars);
} dev_engine_ops_t;

/** The factory: the implementation of kind, or NULL for an unknown kind.
 *  The only place the kind is looked at. */
const dev_engine_ops_t *dev_engine_get(dev_engine_kind_t kind);
/** "rtl" / "model" / "lockstep" / "?" */
const char *dev_engine_name(dev_engine_kind_t kind);

#ifdef __cplusplus
}
#endif
#endif /* DEV_ENGINE_H */
