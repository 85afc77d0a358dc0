/* core.h — drive the device core (rtl/hca_core.sv or its C model: WQE engine,
 * responder, CQ writer, translation unit) from C: the harness around
 * core_engine.h's pins.
 *
 * The harness owns the clock and one adapter per port group of the core:
 *   - DMA block: serves dma_req against host memory and the packet buffers,
 *     answers dma_rsp (docs/engine.md "The C side");
 *   - packet buffers: PKT_BUFS x PKT_BUF_SIZE bytes, owned here;
 *   - link: tx packets come back on rx (loopback) after the link latency and
 *     their payload's serialization, in order, with back-pressure;
 *   - doorbells: host doorbell writes queued onto the db pins;
 *   - firmware port: one register access at a time (post/poll), as xu.h;
 *   - external translation client: key-check probes (submit/collect), as xu.h.
 * Every DMA request, its completion, every packet and every completion
 * written is reported on the event log given at creation (evlog.h), where the
 * protection checker and the runner learn of them.
 *
 * The core is the device engine (dev_engine.h): dev_engine_get(DEV_ENGINE_RTL)
 * is these calls over core_rtl_ops, DEV_ENGINE_MODEL over core_model_ops
 * (model/hca_core.c), DEV_ENGINE_LOCKSTEP over both (core_create_lockstep).
 *
 * Timing (device cycles):
 *   DMA   The bus is full duplex, as PCIe is: reads (READ_DATA, HOST_TO_BUF)
 *         and writes (WRITE_DATA, BUF_TO_HOST) each have their own data
 *         channel. A request accepted in cycle a waits for its direction's
 *         channel: its data phase starts at max(a + L, end of the previous
 *         data phase of that direction) and lasts ceil(len /
 *         bytes_per_cycle) cycles, where L is the host read latency (reads)
 *         or the posted-write cost (writes) of bus_timing_t. The copy
 *         happens and dma_rsp is offered in the cycle the data phase ends:
 *         uncontended, a + bus_transfer_cycles(); a stream of requests
 *         moves bytes_per_cycle bytes a cycle each way. Requests are served
 *         in order of arrival within a direction; the answer offered next is
 *         the one whose transfer ended first (a write may be answered before
 *         an older read); at most dma_max_outstanding are accepted and not
 *         yet answered (dma_req_ready falls). A request that breaks the wire
 *         format's limits (READ_DATA len <= 128, WRITE_DATA len <= 32, buf <
 *         PKT_BUFS, buf_off + len <= PKT_BUF_SIZE, a known op) is answered
 *         err without bus time, counted, and reported to the checker as an
 *         engine bug. A bus error (some byte not backed) answers err and moves
 *         nothing.
 *   Link  A packet accepted on tx in cycle t occupies the wire for
 *         ceil(len / link_bytes_per_cycle) cycles after the previous packet's
 *         and is offered on rx link_latency cycles after it left the wire
 *         (uncontended: t + ceil(len / bpc) + link_latency; at least t + 1),
 *         in order. At most CORE_LINK_DEPTH packets travel at once (tx_ready
 *         falls); rx_ready back-pressure holds the head packet.
 *
 * All functions returning int return 0 or a negative errno; they never abort
 * on bad arguments.
 */
#ifndef CORE_H
#define CORE_H

#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "core_engine.h"
#include "dev_engine.h"
#include "evlog.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CORE_DMA_OUTSTANDING_MAX 256u      /**< one per tag */
#define CORE_LINK_DEPTH 64u                /**< packets in flight on the link */
#define CORE_DB_QUEUE_DEPTH 4096u          /**< doorbells waiting for db_ready */
#define CORE_DMA_READ_DATA_MAX 128u        /**< dma_rsp.rdata bytes */
#define CORE_DMA_WRITE_DATA_MAX 32u        /**< dma_req.data bytes */

/* ---------------------------------------------------------------- the core */

typedef struct core core_t;

/** Make a core on an engine (core_rtl_ops) whose DMA reaches env->dma,
 *  reporting to env->log (both borrowed). cfg may be NULL (defaults).
 *  0, -EINVAL, -ENOTSUP (table sizes the engine was not built with), -ENOMEM. */
int core_create(core_t **out, const core_engine_ops_t *ops, const dev_engine_config_t *cfg,
                const dev_engine_env_t *env);
/** As core_create, with a shadow engine run in lockstep: every cycle it is
 *  given the inputs the first engine got and its outputs are compared; the
 *  first engine alone drives the harness. The first output pin that differs
 *  is reported on env->log as an ENGINE_BUG naming the cycle, the pin and
 *  both values (the protection checker fails the run on it). */
int core_create_lockstep(core_t **out, const core_engine_ops_t *ops, const core_engine_ops_t *shadow_ops,
                         const dev_engine_config_t *cfg, const dev_engine_env_t *env);
void core_destroy(core_t *c);
/** Reset the engine and every adapter (queues emptied, packet buffers kept); time goes on. */
void core_reset(core_t *c);
/** The cycle the next step runs (cycles run since creation). */
uint64_t core_cycle(const core_t *c);
/** Run n cycles. */
void core_step(core_t *c, uint64_t n);
/** The first cycle >= core_cycle() in which anything may happen without new
 *  input from outside (a doorbell, a firmware access, a probe): the engine's
 *  own quiet_until (core_cycle() for an engine without one, the RTL), the
 *  DMA block's next completion, the link's next arrival. */
uint64_t core_quiet_until(const core_t *c);
/** Advance the clock to `to` without running the cycles between (only up to
 *  core_quiet_until(); anything else is ignored). */
void core_skip(core_t *c, uint64_t to);
void core_get_stats(const core_t *c, dev_engine_stats_t *st);
/** Packet buffer id (< PKT_BUFS), PKT_BUF_SIZE bytes; NULL for a bad id. */
uint8_t *core_pbuf(core_t *c, unsigned id);

/** Queue a doorbell: off = HCA_DB_SQ / HCA_DB_RQ / HCA_DB_CQ, val its word.
 *  -EINVAL for another offset, -ENOSPC when CORE_DB_QUEUE_DEPTH wait. */
int core_db_write(core_t *c, uint32_t off, uint32_t val);
/** Doorbells queued and not yet taken by the core. */
size_t core_db_pending(const core_t *c);

/** Start one firmware-port access (offset = firmware address - DEVREG_BASE,
 *  4-byte aligned) without waiting; it is driven on the following cycles.
 *  0, -EINVAL (unaligned or beyond 16 bits), -EBUSY (one is in flight). */
int core_fw_post(core_t *c, int write, uint32_t offset, uint32_t wdata);
/** 1 and *rdata (may be NULL) once the posted access was answered (which ends
 *  it), 0 while in flight, -ENOENT when none was posted. */
int core_fw_poll(core_t *c, uint32_t *rdata);
/** 1 while the core's fw_irq pin is high (a memory-management event is
 *  pending in regs evt), else 0. */
int core_fw_irq(const core_t *c);
/** Blocking accesses (the clock runs until answered). -ETIMEDOUT after 10M cycles. */
int core_fw_read(core_t *c, uint32_t offset, uint32_t *val);
int core_fw_write(core_t *c, uint32_t offset, uint32_t val);

/** External translation client: as xu_submit / xu_pending / xu_collect /
 *  xu_accept_cycle / xu_set_backpressure, on the xq/xs pins. */
int core_xlate_submit(core_t *c, const xu_req_t *req);
size_t core_xlate_pending(const core_t *c);
int core_xlate_collect(core_t *c, xu_seg_t *seg);
uint64_t core_xlate_accept_cycle(const core_t *c, uint64_t n);
int core_xlate_backpressure(core_t *c, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed);

/** Dump waves of cycles [from, to) to an FST file (to = UINT64_MAX: until close). */
int core_trace_open(core_t *c, const char *path, uint64_t from, uint64_t to);
/** Several windows into one file (trace_window_open_spans). */
int core_trace_spans(core_t *c, const char *path, const uint64_t *spans, size_t n);
void core_trace_close(core_t *c);
/** The caller's variables in every later file (core_engine_ops_t.trace_vars);
 *  -ENOTSUP when the engine has none. */
int core_trace_vars(core_t *c, const trace_vars_t *vars);

/* ---------------------------------------------------------------- port adapters
 * The per-cycle pieces core_step() is made of, exposed so tests can drive a
 * port group alone through its pins. One cycle of an adapter: *_drive()
 * before the engine's cycle (sets the inputs it owns), the engine writes its
 * outputs, *_sample() after (judges the handshakes from the pins). */

typedef struct core_dma core_dma_t;

/** A DMA block over the memory behind bus (copied) and pbufs (borrowed:
 *  PKT_BUFS * PKT_BUF_SIZE bytes), timing t (copied), reporting to log
 *  (borrowed; may be NULL). */
int core_dma_create(core_dma_t **out, const bus_t *bus, const bus_timing_t *t, unsigned max_outstanding,
                    uint8_t *pbufs, const evlog_t *log);
void core_dma_destroy(core_dma_t *d);
void core_dma_reset(core_dma_t *d);
/** Cycle now, before the engine: complete what is due (copy), drive
 *  dma_req_ready, dma_rsp_valid and dma_rsp. */
void core_dma_drive(core_dma_t *d, core_pins_t *p, uint64_t now);
/** Cycle now, after the engine: accept dma_req on valid && ready, retire the
 *  response on dma_rsp_valid && dma_rsp_ready (dma_rsp_valid is then
 *  cleared: the next drive offers the next response). */
void core_dma_sample(core_dma_t *d, core_pins_t *p, uint64_t now);
/** Requests accepted and not yet answered. */
unsigned core_dma_outstanding(const core_dma_t *d);
/** With `next` the cycle its next drive runs: the first cycle >= next in
 *  which the block drives something new (a response due); UINT64_MAX with
 *  nothing outstanding. */
uint64_t core_dma_quiet_until(const core_dma_t *d, uint64_t next);
void core_dma_get_stats(const core_dma_t *d, dev_engine_stats_t *st);

typedef struct core_link core_link_t;

/** A loopback link (latency >= 0 cycles, bytes_per_cycle >= 1), reporting to log (may be NULL). */
int core_link_create(core_link_t **out, uint32_t latency, uint32_t bytes_per_cycle, const evlog_t *log);
void core_link_destroy(core_link_t *l);
void core_link_reset(core_link_t *l);
/** Cycle now, before the engine: drive tx_ready, rx_valid and rx. */
void core_link_drive(core_link_t *l, core_pins_t *p, uint64_t now);
/** Cycle now, after the engine: take tx on tx_valid && tx_ready, retire rx on
 *  rx_valid && rx_ready (rx_valid is then cleared). */
void core_link_sample(core_link_t *l, core_pins_t *p, uint64_t now);
/** Packets on the link. */
unsigned core_link_in_flight(const core_link_t *l);
/** The first cycle >= next a packet may be offered on rx; UINT64_MAX when none travels. */
uint64_t core_link_quiet_until(const core_link_t *l, uint64_t next);
void core_link_get_stats(const core_link_t *l, dev_engine_stats_t *st);

#ifdef __cplusplus
}
#endif
#endif /* CORE_H */
