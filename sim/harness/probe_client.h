/* probe_client.h — the key-check probe client both harnesses drive (sim/harness/xu.c
 * on the translation unit's req/rsp pins, sim/harness/core.c on the core's xq/xs
 * pins): the queue of requests waiting, the beats handed over, the cycle each
 * request was accepted, and the back-pressure dice. Header-only: the per-cycle
 * parts sit in the harnesses' hot paths. */
#ifndef PROBE_CLIENT_H
#define PROBE_CLIENT_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "xu.h"

/** Accept cycles kept (older ones are forgotten: probe_accept_cycle answers UINT64_MAX). */
#define PROBE_ACCEPT_HISTORY (1u << 20)
/** First size of the growable queues. */
#define PROBE_INITIAL_CAP 1024u

typedef struct probe_client {
    xu_req_t *rq; /**< requests waiting: ring of XU_QUEUE_DEPTH */
    uint32_t rq_head, rq_count;
    xu_seg_t *bq; /**< beats handed over: growable ring, capacity a power of two */
    size_t bq_cap, bq_head, bq_count;
    uint64_t *acc; /**< accept cycles since reset: growable, then a ring */
    uint64_t acc_cap, acc_n;
    uint32_t gap_thr, stall_thr; /**< probability * 2^32, 0 = never */
    uint64_t rng;
} probe_client_t;

/** 0, or -ENOMEM (probe_client_free releases what was allocated). */
static inline int probe_client_init(probe_client_t *pc)
{
    pc->rq = malloc(XU_QUEUE_DEPTH * sizeof *pc->rq);
    pc->bq_cap = PROBE_INITIAL_CAP;
    pc->bq = malloc(pc->bq_cap * sizeof *pc->bq);
    pc->acc_cap = PROBE_INITIAL_CAP;
    pc->acc = malloc(pc->acc_cap * sizeof *pc->acc);
    return pc->rq && pc->bq && pc->acc ? 0 : -ENOMEM;
}

static inline void probe_client_free(probe_client_t *pc)
{
    free(pc->rq);
    free(pc->bq);
    free(pc->acc);
}

/** Forget every request, beat and accept cycle (a reset). */
static inline void probe_client_clear(probe_client_t *pc)
{
    pc->rq_head = pc->rq_count = 0;
    pc->bq_head = pc->bq_count = 0;
    pc->acc_n = 0;
}

/** splitmix64: small, fast, good enough for back-pressure decisions. */
static inline uint64_t probe_rand(probe_client_t *pc)
{
    uint64_t z = (pc->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/** 1 with probability thr / 2^32. */
static inline int probe_chance(probe_client_t *pc, uint32_t thr)
{
    return thr && (uint32_t)(probe_rand(pc) >> 32) < thr;
}

/** The head request (NULL when none waits) and its removal once accepted. */
static inline const xu_req_t *probe_head(const probe_client_t *pc)
{
    return pc->rq_count ? &pc->rq[pc->rq_head] : NULL;
}

static inline void probe_accepted(probe_client_t *pc, uint64_t cycle)
{
    pc->rq_head = (pc->rq_head + 1) & (XU_QUEUE_DEPTH - 1);
    pc->rq_count--;
    if (pc->acc_n == pc->acc_cap && pc->acc_cap < PROBE_ACCEPT_HISTORY) {
        /* still linear (acc_n == acc_cap): doubling keeps index n at n */
        uint64_t *n = realloc(pc->acc, (size_t)pc->acc_cap * 2 * sizeof *n);
        if (!n)
            abort(); /* out of memory while the clock runs: nothing sane to return */
        pc->acc = n;
        pc->acc_cap *= 2;
    }
    pc->acc[pc->acc_n & (pc->acc_cap - 1)] = cycle;
    pc->acc_n++;
}

/** Append a handed-over beat; grows the queue (doubling) when full. */
static inline void probe_push_beat(probe_client_t *pc, const xu_seg_t *beat)
{
    if (pc->bq_count == pc->bq_cap) {
        size_t ncap = pc->bq_cap * 2;
        xu_seg_t *n = malloc(ncap * sizeof *n);
        if (!n)
            abort();
        for (size_t i = 0; i < pc->bq_count; i++)
            n[i] = pc->bq[(pc->bq_head + i) & (pc->bq_cap - 1)];
        free(pc->bq);
        pc->bq = n;
        pc->bq_cap = ncap;
        pc->bq_head = 0;
    }
    pc->bq[(pc->bq_head + pc->bq_count) & (pc->bq_cap - 1)] = *beat;
    pc->bq_count++;
}

/** Queue a request: 0, or -ENOSPC when XU_QUEUE_DEPTH wait. */
static inline int probe_submit(probe_client_t *pc, const xu_req_t *req)
{
    if (pc->rq_count == XU_QUEUE_DEPTH)
        return -ENOSPC;
    pc->rq[(pc->rq_head + pc->rq_count) & (XU_QUEUE_DEPTH - 1)] = *req;
    pc->rq_count++;
    return 0;
}

/** Take the oldest beat: 1, or 0 when none. */
static inline int probe_collect(probe_client_t *pc, xu_seg_t *seg)
{
    if (pc->bq_count == 0)
        return 0;
    *seg = pc->bq[pc->bq_head];
    pc->bq_head = (pc->bq_head + 1) & (pc->bq_cap - 1);
    pc->bq_count--;
    return 1;
}

/** The cycle request n (0-based since reset) was accepted; UINT64_MAX when
 *  not yet accepted or forgotten. */
static inline uint64_t probe_accept_cycle(const probe_client_t *pc, uint64_t n)
{
    if (n >= pc->acc_n || pc->acc_n - n > pc->acc_cap)
        return UINT64_MAX;
    return pc->acc[n & (pc->acc_cap - 1)];
}

static inline uint32_t probe_pct_thr(unsigned pct)
{
    return pct == 0 ? 0 : pct >= 100 ? UINT32_MAX : (uint32_t)(((uint64_t)pct << 32) / 100u);
}

/** Random gaps between requests and stalls of rsp_ready, in percent. 0, or -EINVAL above 100. */
static inline int probe_set_backpressure(probe_client_t *pc, unsigned gap_pct, unsigned stall_pct, uint64_t seed)
{
    if (gap_pct > 100 || stall_pct > 100)
        return -EINVAL;
    pc->gap_thr = probe_pct_thr(gap_pct);
    pc->stall_thr = probe_pct_thr(stall_pct);
    pc->rng = seed;
    return 0;
}

#endif /* PROBE_CLIENT_H */
