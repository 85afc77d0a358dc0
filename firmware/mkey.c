/* mkey.c — memory keys: MPT slot allocation, MTT space, CREATE/DESTROY/QUERY_MKEY.
 *
 * The firmware keeps a shadow of what it gave each slot (kind, PD, key byte,
 * MTT extent) and changes the device tables only through the translation
 * unit's firmware port. A registration is validated and its MTT written
 * before its MPT entry, so a failed CREATE_MKEY leaves no usable key behind.
 */
#include "cmd.h"
#include "console.h"
#include "dev.h"
#include "mm.h"

#define MTT_EXTENTS (MKEY_SLOTS + 2)       /* free extents never outnumber allocations + 1 */
#define PAGES_PER_DMA (HCA_FDMA_MAX_LEN / 8)
_Static_assert(MKEY_LIST_BYTES >= HCA_FDMA_MAX_LEN, "a CREATE_MKEY page-list chunk fits the staging");

typedef struct extent {
    uint32_t base, count;
} extent_t;

mkey_t mkeys[MKEY_SLOTS];
uint32_t mkey_slots; /* usable slots: 1..mkey_slots-1 (index 0 is never an MR) */
static uint32_t next_slot = 1;
static extent_t mtt_free[MTT_EXTENTS]; /* sorted by base, never adjacent */
static uint32_t n_mtt_free;
uint64_t mkey_list_buf[MKEY_LIST_BYTES / 8];

void mkey_init(void)
{
    uint32_t mpt = 1u << fwp_mpt_log2();
    mkey_slots = mpt < MKEY_SLOTS ? mpt : MKEY_SLOTS;
    mtt_free[0] = (extent_t){0, 1u << fwp_mtt_log2()};
    n_mtt_free = 1;
}

void mkey_reset(void)
{
    for (uint32_t i = 0; i < MKEY_SLOTS; i++)
        mkeys[i] = (mkey_t){0};
    next_slot = 1;
    mkey_init();
}


/* First fit. 0, or -1 when no extent is large enough. */
static int mtt_alloc(uint32_t count, uint32_t *base)
{
    if (count == 0) {
        *base = 0;
        return 0;
    }
    for (uint32_t i = 0; i < n_mtt_free; i++) {
        if (mtt_free[i].count < count)
            continue;
        *base = mtt_free[i].base;
        mtt_free[i].base += count;
        mtt_free[i].count -= count;
        if (mtt_free[i].count == 0) {
            for (uint32_t j = i; j + 1 < n_mtt_free; j++)
                mtt_free[j] = mtt_free[j + 1];
            n_mtt_free--;
        }
        return 0;
    }
    return -1;
}

static void mtt_release(uint32_t base, uint32_t count)
{
    if (count == 0)
        return;
    uint32_t i = 0;
    while (i < n_mtt_free && mtt_free[i].base < base)
        i++;
    int join_prev = i > 0 && mtt_free[i - 1].base + mtt_free[i - 1].count == base;
    int join_next = i < n_mtt_free && base + count == mtt_free[i].base;
    if (join_prev && join_next) {
        mtt_free[i - 1].count += count + mtt_free[i].count;
        for (uint32_t j = i; j + 1 < n_mtt_free; j++)
            mtt_free[j] = mtt_free[j + 1];
        n_mtt_free--;
    } else if (join_prev) {
        mtt_free[i - 1].count += count;
    } else if (join_next) {
        mtt_free[i].base = base;
        mtt_free[i].count += count;
    } else {
        for (uint32_t j = n_mtt_free; j > i; j--)
            mtt_free[j] = mtt_free[j - 1];
        mtt_free[i] = (extent_t){base, count};
        n_mtt_free++;
    }
}

/* Next fit, so a freed index is reused as late as possible. 0 when none is free. */
static uint32_t slot_alloc(void)
{
    for (uint32_t n = 1; n < mkey_slots; n++) {
        uint32_t i = next_slot;
        next_slot = next_slot + 1 < mkey_slots ? next_slot + 1 : 1;
        if (!mkeys[i].in_use)
            return i;
    }
    return 0;
}

int mkey_access_valid(uint32_t access)
{
    if (access & ~HCA_ACCESS_ALL)
        return 0;
    if ((access & (HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC)) && !(access & HCA_ACCESS_LOCAL_WRITE))
        return 0;
    return 1;
}

static unsigned bad_param(const char *why)
{
    con_puts("hcafw: CREATE_MKEY: ");
    con_puts(why);
    con_putc('\n');
    return HCA_CMD_STATUS_BAD_PARAM;
}

/* Checks of a regular registration; returns a cmd_status. */
static unsigned check_regular(const hca_create_mkey_in_t *in, unsigned ps)
{
    if (ps < HCA_PAGE_SHIFT_MIN || ps > HCA_PAGE_SHIFT_MAX)
        return bad_param("page_shift outside the supported sizes");
    if (in->npages == 0 || in->npages > HCA_MAX_REG_PAGES)
        return bad_param("npages is 0 or above max_reg_pages");
    if (in->length == 0 || in->iova + in->length < in->iova)
        return bad_param("length is 0 or iova + length wraps 2^64");
    uint64_t fbo = in->iova & ((1ull << ps) - 1);
    if (in->length > ((uint64_t)in->npages << ps) - fbo)
        return bad_param("length does not fit the page list");
    return HCA_CMD_STATUS_OK;
}

/* DMA the page list in and write it to MTT[base...]. */
static unsigned load_pages(uint64_t list, uint32_t npages, unsigned ps, uint32_t base)
{
    for (uint32_t done = 0; done < npages;) {
        uint32_t n = npages - done < PAGES_PER_DMA ? npages - done : PAGES_PER_DMA;
        if (fdma_copy(list + 8ull * done, mkey_list_buf, n * 8, 0))
            return HCA_CMD_STATUS_DMA_ERR;
        for (uint32_t i = 0; i < n; i++) {
            if (mkey_list_buf[i] & ((1ull << ps) - 1))
                return bad_param("a page address is not aligned to the page size");
            if (fwp_write_page(base + done + i, mkey_list_buf[i]) != HCA_FWP_RESULT_OK)
                return HCA_CMD_STATUS_INTERNAL;
        }
        done += n;
    }
    return HCA_CMD_STATUS_OK;
}

unsigned mkey_create(uint64_t in_addr, uint32_t *key)
{
    hca_create_mkey_in_t in;
    if (fdma_copy(in_addr, &in, sizeof in, 0))
        return HCA_CMD_STATUS_DMA_ERR;
    unsigned kind = hca_create_mkey_in_get_kind(&in);
    unsigned access = hca_create_mkey_in_get_access(&in);
    unsigned ps = hca_create_mkey_in_get_page_shift(&in);
    if (!pd_valid(in.pd))
        return HCA_CMD_STATUS_BAD_INDEX;
    if (!mkey_access_valid(access))
        return bad_param("access flags: a remote write or atomic right needs LOCAL_WRITE");

    uint32_t mtt_count = 0;
    unsigned st = HCA_CMD_STATUS_OK;
    switch (kind) {
    case HCA_MKEY_KIND_REGULAR:
        st = check_regular(&in, ps);
        mtt_count = in.npages;
        break;
    case HCA_MKEY_KIND_FAST_REG:
        if (in.npages == 0 || in.npages > HCA_MAX_FAST_REG_PAGE_LIST_LEN)
            st = bad_param("max_page_list_len is 0 or above the device limit");
        mtt_count = in.npages;
        break;
    case HCA_MKEY_KIND_INDIRECT:
        if (in.npages == 0 || in.npages > HCA_MAX_INDIR_REG_LIST_LEN)
            st = bad_param("max_indir_list_len is 0 or above the device limit");
        mtt_count = 2 * in.npages; /* a KLM entry takes two MTT words */
        break;
    default: /* DMA: bus addresses, no MTT */
        break;
    }
    if (st != HCA_CMD_STATUS_OK)
        return st;

    uint32_t index = slot_alloc();
    uint32_t base;
    if (!index)
        return HCA_CMD_STATUS_NO_RESOURCES;
    if (mtt_alloc(mtt_count, &base))
        return HCA_CMD_STATUS_NO_RESOURCES;
    if (kind == HCA_MKEY_KIND_REGULAR && (st = load_pages(in.page_list, in.npages, ps, base))) {
        mtt_release(base, mtt_count);
        return st;
    }

    mkey_t *m = &mkeys[index];
    uint8_t key_byte = (uint8_t)(m->key_byte + 1); /* never the previous life's key */
    hca_mpt_entry_t e = {0, 0, 0, 0, 0, 0, 0, 0};
    hca_mpt_entry_set_alloc(&e, 1);
    hca_mpt_entry_set_kind(&e, kind);
    hca_mpt_entry_set_mode(&e, kind == HCA_MKEY_KIND_INDIRECT ? HCA_MKEY_MODE_KLM : HCA_MKEY_MODE_MTT);
    e.key = (index << HCA_KEY_INDEX_SHIFT) | key_byte;
    e.pd = in.pd;
    e.mtt_base = base;
    e.mtt_count = mtt_count;
    hca_mpt_entry_set_page_shift(&e, HCA_PAGE_SHIFT_MIN);
    if (kind == HCA_MKEY_KIND_REGULAR) {
        hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_access(&e, access);
        hca_mpt_entry_set_page_shift(&e, ps);
        e.iova = in.iova;
        e.length = in.length;
    } else if (kind == HCA_MKEY_KIND_DMA) {
        hca_mpt_entry_set_state(&e, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_access(&e, HCA_ACCESS_LOCAL_WRITE); /* local read and write, no R_Key */
    } /* fast_reg, indirect: FREE until a registration work request */
    fwp_stage_mpt(&e);
    if (fwp_run(HCA_FWP_OP_WRITE_MPT, index) != HCA_FWP_RESULT_OK) {
        mtt_release(base, mtt_count);
        return HCA_CMD_STATUS_INTERNAL;
    }
    *m = (mkey_t){.in_use = 1, .kind = (uint8_t)kind, .key_byte = key_byte,
                  .state = (uint8_t)hca_mpt_entry_get_state(&e), .pd = in.pd,
                  .mtt_base = base, .mtt_count = mtt_count};
    pd_get(in.pd);
    *key = e.key;
    return HCA_CMD_STATUS_OK;
}

unsigned mkey_destroy(uint32_t key)
{
    uint32_t index = key >> HCA_KEY_INDEX_SHIFT;
    if (index == 0 || index >= mkey_slots || !mkeys[index].in_use ||
        mkeys[index].key_byte != (key & HCA_KEY_BYTE_MASK))
        return HCA_CMD_STATUS_BAD_INDEX;
    /* Invalidate-and-fence first: once it returns no request can still use the entry. */
    if (fwp_run(HCA_FWP_OP_INVALIDATE, index) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
    /* Then the device-level DMA fence: the engine's placement checks every
     * piece of a packet before its DMAs, so a DMA checked with the old entry
     * may still be on its way to memory after the INVALIDATE; DRAIN waits for
     * every such DMA to be answered (docs/engine.md "Invalidation and
     * in-flight DMA"). An engine without a WQE engine answers BAD_OP: it
     * issues no DMA through a key, nothing to drain. */
#ifndef HCAFW_MUTANT_NO_DRAIN_DESTROY
    unsigned dr = ctx_run(HCA_CTX_OP_DRAIN, 0);
#else /* the mutant image that proves a DESTROY_MKEY without its DRAIN is caught */
    unsigned dr = HCA_FWP_RESULT_OK;
#endif
    if (dr != HCA_FWP_RESULT_OK && dr != HCA_FWP_RESULT_BAD_OP)
        return HCA_CMD_STATUS_INTERNAL;
    hca_mpt_entry_t e = {0, 0, 0, 0, 0, 0, 0, 0}; /* alloc = 0: the slot is free */
    fwp_stage_mpt(&e);
    if (fwp_run(HCA_FWP_OP_WRITE_MPT, index) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
    mkey_t *m = &mkeys[index];
    mtt_release(m->mtt_base, m->mtt_count);
    pd_put(m->pd);
    m->in_use = 0; /* key_byte stays: the next life takes another */
    return HCA_CMD_STATUS_OK;
}

int peer_invalidation_strapped(void)
{
    uint32_t v = 0;
    /* A device without the strap block is one without peer invalidation. */
    return reg_probe(HCA_FW_STRAP_BASE + HCA_STRAP_FEATURES, &v) == 0 &&
           HCA_STRAP_FEATURES_PEER_INVALIDATION_GET(v);
}

/* A peer memory client's invalidate callback: the MR's pages are being taken
 * away. The same fence as DESTROY_MKEY (INVALIDATE, then DRAIN), but the slot
 * stays: the MR is FREE, later accesses fail, and the consumer still
 * deregisters it. An MR already FREE is fenced again all the same (cheap, and
 * the caller's guarantee does not depend on what the firmware thinks). */
unsigned mkey_invalidate(uint32_t key)
{
    if (!peer_invalidation_strapped())
        return HCA_CMD_STATUS_BAD_OP;
    uint32_t index = key >> HCA_KEY_INDEX_SHIFT;
    mkey_t *m = mkey_get(index);
    if (!m || m->key_byte != (key & HCA_KEY_BYTE_MASK))
        return HCA_CMD_STATUS_BAD_INDEX;
    if (m->kind == HCA_MKEY_KIND_DMA)
        return HCA_CMD_STATUS_BAD_PARAM; /* no pages to take away */
    if (fwp_run(HCA_FWP_OP_INVALIDATE, index) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
    m->state = HCA_MKEY_STATE_FREE;
#ifndef HCAFW_MUTANT_PEER_NO_DRAIN
    unsigned dr = ctx_run(HCA_CTX_OP_DRAIN, 0);
#else /* the mutant image that proves a callback returning before the DRAIN is caught */
    unsigned dr = HCA_FWP_RESULT_OK;
#endif
    if (dr != HCA_FWP_RESULT_OK && dr != HCA_FWP_RESULT_BAD_OP)
        return HCA_CMD_STATUS_INTERNAL;
    return HCA_CMD_STATUS_OK;
}

unsigned mkey_query(uint32_t index, uint64_t out_addr)
{
    if (index >> fwp_mpt_log2())
        return HCA_CMD_STATUS_BAD_INDEX;
    if (fwp_run(HCA_FWP_OP_READ_MPT, index) != HCA_FWP_RESULT_OK)
        return HCA_CMD_STATUS_INTERNAL;
    hca_mpt_entry_t e;
    fwp_fetch_mpt(&e);
    return fdma_copy(out_addr, &e, sizeof e, 1) ? HCA_CMD_STATUS_DMA_ERR : HCA_CMD_STATUS_OK;
}
