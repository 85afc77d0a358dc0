/* hca_fseq.h — the port sequencer (register block fseq): a program in
 * firmware RAM run over the engine's firmware port, one access at a time, as
 * the core's own accesses go (docs/device.md "Port sequencer"). The device
 * (hca_dev.c) owns the port and the RAM and ticks it once a cycle. */
#ifndef HCA_FSEQ_H
#define HCA_FSEQ_H

#include <stdint.h>

#include "hca_abi.h"

typedef struct hca_fseq {
    uint32_t prog, count, pc; /* entry pc of count at firmware address prog */
    uint32_t polls;           /* status reads of the WAIT at pc */
    uint32_t word;            /* the word of the *_RAM entry at pc */
    uint32_t words;           /* its words: arg, or EVT_INV_WORDS once a READ_EVT read a short event's hdr (hca_evt_reads_short) */
    int trusted;              /* READ_EVT of an invalidation with hdr.inv_ok: words 0, 2 (key), and 1 (pd)
                                 only if the guard cleared the bit (hca_fseq_evt_key) */
    int busy, error, stopped;
    int posted; /* the access of entry pc is in flight */
    /* The key indexes of the program's READ_EVTs so far: a later one's
     * hdr.inv_ok is cleared when its index is among them (an earlier event
     * of the batch may change that MR before this one is decided). */
    uint32_t evt_idx[HCA_FSEQ_MAX_OPS];
    uint32_t evts;
} hca_fseq_t;

/** 1 for the event kinds that invalidate a key (LOCAL_INV, REMOTE_INV,
 *  READ_INV): READ_EVT reads EVT_INV_WORDS of them. */
static inline int hca_evt_kind_invalidates(unsigned kind)
{
    return kind == HCA_EVT_KIND_LOCAL_INV || kind == HCA_EVT_KIND_REMOTE_INV || kind == HCA_EVT_KIND_READ_INV;
}

/** 1 when READ_EVT reads EVT_INV_WORDS (hdr, pd, key) of the event whose hdr
 *  is hdr: an invalidation's, and a FAST_REG_MR's with wqe_ok, whose
 *  registration fwp's bank keeps at its POP (fwp FAST_REG). */
static inline int hca_evt_reads_short(uint32_t hdr)
{
    const unsigned kind = (hdr >> HCA_FW_EVENT_KIND_LSB) & ((1u << HCA_FW_EVENT_KIND_WIDTH) - 1u);
    return hca_evt_kind_invalidates(kind) ||
           (kind == HCA_EVT_KIND_FAST_REG_MR && (hdr >> HCA_FW_EVENT_WQE_OK_LSB & 1u));
}

/** fw_event.key's word: an invalidation's last read (EVT_INV_WORDS). */
#define HCA_EVT_KEY_WORD 2u /* = HCA_EVT_INV_WORDS - 1 (hca_fseq.c asserts it) */

/** READ_EVT has read the key of the event whose words are w (hdr first):
 *  hdr.inv_ok stands only for the program's first event on the key's index
 *  (seen[0..*n): the indexes its READ_EVTs read so far, max at most), the
 *  MPT the verdict read being the one before any of the batch's decisions;
 *  a later one's bit is cleared. */
static inline void hca_fseq_evt_key(uint32_t *seen, uint32_t *n, uint32_t max, uint32_t *w)
{
    const uint32_t idx = w[HCA_EVT_KEY_WORD] >> HCA_KEY_INDEX_SHIFT;
    for (uint32_t i = 0; i < *n; i++)
        if (seen[i] == idx) {
            w[0] &= ~(1u << HCA_FW_EVENT_INV_OK_LSB);
            return;
        }
    if (*n < max)
        seen[(*n)++] = idx;
}

/** What the sequencer drives: the engine's firmware port and the firmware RAM. */
typedef struct hca_fseq_port {
    void *ctx;
    uint8_t *ram; /**< firmware RAM (HCA_FW_RAM_BASE .. + HCA_FW_RAM_SIZE) */
    int (*post)(void *ctx, int write, uint32_t off, uint32_t val); /**< 0, or no register there */
    int (*poll)(void *ctx, uint32_t *val);                          /**< 1 once answered */
    void (*answered)(void *ctx, int write, uint32_t off, uint32_t val); /**< each access done (val: written or read) */
} hca_fseq_port_t;

/** RUN of count entries at s->prog: 1 when it started, 0 when refused (error set) or one runs. */
int hca_fseq_run(hca_fseq_t *s, uint32_t count);
/** One device cycle, after the engine's: take the answer in flight, then post
 *  the next access unless the core's holds the port (core_posted). Returns
 *  the accesses answered (0 or 1). */
unsigned hca_fseq_tick(hca_fseq_t *s, const hca_fseq_port_t *p, int core_posted);
/** The STATUS register. */
uint32_t hca_fseq_status(const hca_fseq_t *s);

#endif /* HCA_FSEQ_H */
