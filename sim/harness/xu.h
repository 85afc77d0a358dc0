/* xu.h — drive one translation unit (RTL or model) from C.
 *
 * The harness owns the clock. Requests queued with xu_submit() are presented
 * on the request port in order (a request stays valid until accepted); beats
 * of the response port are collected into a queue read with xu_collect().
 * Optional random back-pressure idles the request port between requests and
 * withholds rsp_ready. Firmware-port helpers step the clock until their
 * access or command completes, while requests keep flowing.
 *
 * All times are in device cycles. Functions returning int return 0 or a
 * negative errno; they never abort on bad arguments.
 */
#ifndef XU_H
#define XU_H

#include <stddef.h>
#include <stdint.h>

#include "hca_abi.h"
#include "xu_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xu_engine_kind {
    XU_ENGINE_RTL,   /**< the Verilated RTL */
    XU_ENGINE_MODEL, /**< the C model */
} xu_engine_kind_t;

typedef struct xu xu_t;

/** Requests xu_submit() queues before it answers -ENOSPC. */
#define XU_QUEUE_DEPTH 4096u

/** Make a unit on one engine. params may be NULL for the default sizes.
 *  0, -EINVAL, -ENOTSUP (e.g. RTL sizes other than it was built with), -ENOMEM. */
int xu_create(xu_t **out, xu_engine_kind_t kind, const xu_params_t *params);
void xu_destroy(xu_t *xu);
/** Reset the unit and the harness queues; the cycle count goes on. */
void xu_reset(xu_t *xu);
/** "rtl" or "model". */
const char *xu_engine_name(const xu_t *xu);
/** Cycles run since creation. */
uint64_t xu_cycle(const xu_t *xu);
/** Run n cycles. */
void xu_step(xu_t *xu, uint64_t n);

/** Queue a request. 0, -ENOSPC when XU_QUEUE_DEPTH requests wait, -EINVAL on NULL. */
int xu_submit(xu_t *xu, const xu_req_t *req);
/** Requests queued and not yet accepted by the unit. */
size_t xu_pending(const xu_t *xu);
/** Pop the oldest collected beat: 1 and *seg filled, or 0 when there is none. */
int xu_collect(xu_t *xu, xu_seg_t *seg);
/** Cycle in which the n-th accepted request (0-based, since reset) was accepted, or UINT64_MAX.
 *  The newest 2^20 accept cycles are kept; older ones read UINT64_MAX. */
uint64_t xu_accept_cycle(const xu_t *xu, uint64_t n);
/** Random back-pressure: idle the request port for a cycle between requests with
 *  probability req_gap_pct/100, drop rsp_ready with probability rsp_stall_pct/100. */
int xu_set_backpressure(xu_t *xu, unsigned req_gap_pct, unsigned rsp_stall_pct, uint64_t seed);

/** One firmware-port register access (blocking). */
int xu_fw_read(xu_t *xu, uint32_t offset, uint32_t *val);
int xu_fw_write(xu_t *xu, uint32_t offset, uint32_t val);
/** Start one firmware-port register access without waiting: it is driven on
 *  the following cycles (xu_step) while requests keep flowing. 0, -EINVAL
 *  (offset outside the fwp block or unaligned), -EBUSY (one is in flight). */
int xu_fw_post(xu_t *xu, int write, uint32_t offset, uint32_t wdata);
/** 1 and *rdata (may be NULL; 0 for a write) once the posted access has been
 *  answered, which also ends it; 0 while it is in flight; -ENOENT when none was posted. */
int xu_fw_poll(xu_t *xu, uint32_t *rdata);
/** Write CMD = {op, index} without waiting. */
int xu_cmd_start(xu_t *xu, unsigned op, uint32_t index);
/** 1 while a command runs, 0 when idle, or a negative errno. */
int xu_cmd_busy(xu_t *xu);
/** Wait until the running command completes; *result = STATUS.result.
 *  -ETIMEDOUT after timeout_cycles. */
int xu_cmd_wait(xu_t *xu, uint64_t timeout_cycles, unsigned *result);

/** Stage and write MPT[index] (blocking). 0, -EINVAL, -EIO when the port refuses it. */
int xu_write_mpt(xu_t *xu, uint32_t index, const hca_mpt_entry_t *e);
/** Debug read of MPT[index] (blocking). */
int xu_read_mpt(xu_t *xu, uint32_t index, hca_mpt_entry_t *e);
int xu_write_mtt(xu_t *xu, uint32_t index, const hca_mtt_entry_t *e);
int xu_read_mtt(xu_t *xu, uint32_t index, hca_mtt_entry_t *e);
/** Invalidate-and-fence MPT[index]: returns once no request that passed its
 *  check with the old entry can still produce a segment. */
int xu_invalidate(xu_t *xu, uint32_t index);

/** Dump waves of cycles [from, to) to an FST file (to = UINT64_MAX: until close).
 *  -ENOTSUP on an engine without waves. */
int xu_trace_open(xu_t *xu, const char *path, uint64_t from, uint64_t to);
void xu_trace_close(xu_t *xu);

/** Name of an xlate status ("OK", "ERR_KEY", ...). */
static inline const char *xu_status_name(unsigned s)
{
    const char *n = hca_xlate_status_name(s);
    return n ? n : "?";
}

#ifdef __cplusplus
}
#endif
#endif /* XU_H */
