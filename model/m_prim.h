/* m_prim.h — the C models of the RTL's shared primitives, hca_arb.sv and
 * xu_fifo.sv, and the conventions every block model in model/ follows.
 *
 * Conventions (one RTL module = one model/<module>.{c,h}, same name):
 *   - <module>_io_t holds the module's ports for one cycle, one field per
 *     RTL port, named as the port without its _i/_o suffix. 1-bit ports are
 *     uint8_t, up to 32 bits uint32_t (narrower C types where the ABI has
 *     them), up to 64 bits uint64_t; a port carrying an ABI struct
 *     (dma_req, dma_rsp, pkt, cqe, qp_ctx, cq_ctx, fw_event) holds the
 *     hca_abi.h struct; other packed buses hold a C struct declared in the
 *     module's header, field for field.
 *   - <module>_reset(m): as rst_ni low.
 *   - <module>_comb(m, io, now): the module's combinational logic: writes
 *     every output of io from the state and io's inputs; changes no state.
 *     The device model calls every comb repeatedly until no output changes
 *     (the RTL's combinational paths between modules settle the same way),
 *     so comb must be a pure function of (state, inputs).
 *   - <module>_edge(m, io, now): the clock edge, with io settled: the
 *     always_ff blocks.
 *   - <module>_quiet_until(m, now): the first cycle > now in which the
 *     module may act with every input valid low (now + 1 while it has work,
 *     a timer's deadline, or UINT64_MAX when it waits only for input). A
 *     model keeps timers as deadlines (absolute cycles), so the device may
 *     skip quiet cycles without stepping them.
 */
#ifndef M_PRIM_H
#define M_PRIM_H

#include <stdint.h>
#include <string.h>

#include "hca_abi.h"

/* ---------------------------------------------------------------- per-QP vectors
 * An RTL vector [MAX_QP-1:0] (bit q = QP q) as words, sized for the ABI's
 * MAX_QP; a model built for fewer QPs keeps the bits above zero. */
#define M_QV_WORDS ((HCA_MAX_QP + 63u) / 64u)
typedef struct m_qv {
    uint64_t w[M_QV_WORDS];
} m_qv_t;

static inline int m_qv_get(const m_qv_t *v, unsigned q) { return (int)(v->w[q >> 6] >> (q & 63u) & 1u); }

static inline void m_qv_put(m_qv_t *v, unsigned q, int bit)
{
    const uint64_t b = 1ull << (q & 63u);
    v->w[q >> 6] = bit ? v->w[q >> 6] | b : v->w[q >> 6] & ~b;
}

static inline int m_qv_any(const m_qv_t *v)
{
    uint64_t a = 0;
    for (unsigned i = 0; i < M_QV_WORDS; i++)
        a |= v->w[i];
    return a != 0;
}

/** The lowest set bit at or above from, or -1. */
static inline int m_qv_first_from(const m_qv_t *v, unsigned from)
{
    for (unsigned i = from >> 6; i < M_QV_WORDS; i++) {
        const uint64_t x = i == from >> 6 ? v->w[i] & (~0ull << (from & 63u)) : v->w[i];
        if (x)
            return (int)(i * 64u + (unsigned)__builtin_ctzll(x));
    }
    return -1;
}

/* ---------------------------------------------------------------- hca_arb
 * Round-robin arbiter of up to 32 inputs. The data path is the caller's:
 * out_data = in_data[out_id]. */
typedef struct m_arb {
    uint16_t n;       /**< inputs (parameter N; the requester's scheduler has MAX_QP) */
    uint16_t last;    /**< last_q: the input granted last */
    uint8_t hold;     /**< hold_q: a beat was offered and not taken */
    uint16_t hold_id; /**< hold_id_q */
} m_arb_t;

typedef struct m_arb_out {
    uint8_t valid;     /**< out_valid_o */
    uint16_t id;       /**< out_id_o (the pick, also when !valid) */
    uint8_t found;     /**< a grant exists (internal) */
    uint32_t in_ready; /**< in_ready_o, bit i for input i */
} m_arb_out_t;

static inline void m_arb_reset(m_arb_t *a, unsigned n)
{
    a->n = (uint16_t)n;
    a->last = (uint16_t)(n - 1);
    a->hold = 0;
    a->hold_id = 0;
}

/** Combinational: pick and readies from the valids and out_ready. */
static inline void m_arb_comb(const m_arb_t *a, uint32_t in_valid, uint8_t out_ready, m_arb_out_t *o)
{
    unsigned pick = 0, found = 0;
    if (a->hold) {
        pick = a->hold_id;
        found = 1;
    } else if (in_valid) {
        for (unsigned k = 1; k <= a->n; k++) { /* first valid after last, wrapping */
            unsigned idx = a->last + k;
            if (idx >= a->n)
                idx -= a->n;
            if (in_valid >> idx & 1u) {
                pick = idx;
                found = 1;
                break;
            }
        }
    }
    o->id = (uint16_t)pick;
    o->found = (uint8_t)found;
    o->valid = (uint8_t)(found && (in_valid >> pick & 1u));
    o->in_ready = found && out_ready ? 1u << pick : 0u;
}

/** The edge, with the cycle's settled values. */
static inline void m_arb_edge(m_arb_t *a, const m_arb_out_t *o, uint8_t out_ready)
{
    if (o->valid && out_ready)
        a->last = o->id;
    a->hold = (uint8_t)(o->valid && !out_ready);
    if (a->hold) /* read only while held: kept still otherwise, as hca_arb.sv's */
        a->hold_id = o->id;
}

/* ---------------------------------------------------------------- xu_fifo
 * Synchronous FIFO of `depth` (a power of two) elements of `size` bytes; the
 * head shows from registers; a push into a full FIFO is taken only when the
 * head pops in the same cycle (the RTL's push rule), else dropped. */
typedef struct m_fifo {
    uint8_t *mem;
    uint32_t size, depth;
    uint32_t rptr, level;
} m_fifo_t;

static inline void m_fifo_reset(m_fifo_t *f) { f->rptr = f->level = 0; }
static inline int m_fifo_valid(const m_fifo_t *f) { return f->level != 0; }
static inline const void *m_fifo_head(const m_fifo_t *f) { return f->mem + (size_t)f->rptr * f->size; }
static inline uint32_t m_fifo_level(const m_fifo_t *f) { return f->level; }

/** The edge: pop when out_ready and not empty, push data when in_valid (and
 *  room, counting the pop). */
static inline void m_fifo_edge(m_fifo_t *f, uint8_t in_valid, const void *in_data, uint8_t out_ready)
{
    const int pop = f->level != 0 && out_ready;
    const int push = in_valid && (f->level != f->depth || pop);
    if (push)
        memcpy(f->mem + (size_t)((f->rptr + f->level) & (f->depth - 1)) * f->size, in_data, f->size);
    if (pop)
        f->rptr = (f->rptr + 1) & (f->depth - 1);
    f->level = f->level + (uint32_t)push - (uint32_t)pop;
}

/** Storage: depth * size bytes the caller provides (kept across reset, as the RTL's memory). */
static inline void m_fifo_init(m_fifo_t *f, void *mem, uint32_t size, uint32_t depth)
{
    f->mem = (uint8_t *)mem;
    f->size = size;
    f->depth = depth;
    m_fifo_reset(f);
}

#endif /* M_PRIM_H */
