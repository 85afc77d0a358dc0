/* hca_fseq.c — see hca_fseq.h. */
#include "hca_fseq.h"

#include "dev_engine.h"
#include "hca_abi.h"

_Static_assert(HCA_EVT_KEY_WORD + 1 == HCA_EVT_INV_WORDS, "key is the short read's last word");

static hca_fseq_entry_t *fseq_entry(const hca_fseq_t *s, const hca_fseq_port_t *p, uint32_t i)
{
    return (hca_fseq_entry_t *)(p->ram + (s->prog - HCA_FW_RAM_BASE) + 8u * i);
}

static void fseq_end(hca_fseq_t *s, int error, int stopped)
{
    s->busy = 0;
    s->error = error;
    s->stopped = stopped;
}

/* RUN: the whole program must lie in firmware RAM. */
int hca_fseq_run(hca_fseq_t *s, uint32_t count)
{
    if (s->busy)
        return 0;
    s->count = count;
    s->pc = s->polls = s->word = 0;
    s->evts = 0;
    s->trusted = 0;
    const uint64_t end = (uint64_t)s->prog + 8ull * count;
    if (count == 0 || count > HCA_FSEQ_MAX_OPS || (s->prog & 7u) || s->prog < HCA_FW_RAM_BASE ||
        end > (uint64_t)HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE) {
        fseq_end(s, 1, 0);
        return 0;
    }
    s->busy = 1;
    s->error = s->stopped = 0;
    return 1;
}

/* The RAM words [addr, addr + 4 words) of a *_RAM entry, or NULL when they
 * are not all in firmware RAM. */
static uint32_t *fseq_ram(const hca_fseq_port_t *p, uint32_t addr, uint32_t words)
{
    if ((addr & 3u) || words == 0 || words > HCA_FSEQ_MAX_WORDS || addr < HCA_FW_RAM_BASE ||
        (uint64_t)addr + 4ull * words > (uint64_t)HCA_FW_RAM_BASE + HCA_FW_RAM_SIZE)
        return NULL;
    return (uint32_t *)(p->ram + (addr - HCA_FW_RAM_BASE));
}

static int fseq_ram_kind(uint32_t kind)
{
    return kind == HCA_FSEQ_KIND_WRITE_RAM || kind == HCA_FSEQ_KIND_READ_RAM || kind == HCA_FSEQ_KIND_READ_EVT;
}

/* READ_EVT: the words of the event whose hdr is w (at most arg): nothing
 * after key of an invalidation, nor of a FAST_REG_MR with wqe_ok (fwp's
 * bank keeps the rest). */
static uint32_t fseq_evt_words(uint32_t w, uint32_t arg)
{
    return hca_evt_reads_short(w) && arg > HCA_EVT_INV_WORDS ? HCA_EVT_INV_WORDS : arg;
}

/* The entry's next word to access (s->word), or 0 when it has none left.
 * A READ_EVT of an invalidation whose hdr has inv_ok reads its key next and
 * its pd only if the key's index makes the verdict stale (the bit cleared):
 * the firmware decides a trusted one without its pd. */
static int fseq_next_word(hca_fseq_t *s, const uint32_t *ram)
{
    if (s->trusted) {
        _Static_assert(HCA_EVT_INV_WORDS == 3 && HCA_EVT_KEY_WORD == 2, "hdr, pd, key");
        if (s->word == 0) {
            s->word = HCA_EVT_KEY_WORD;
            return 1;
        }
        if (s->word == HCA_EVT_KEY_WORD && !(ram[0] >> HCA_FW_EVENT_INV_OK_LSB & 1u)) {
            s->word = 1; /* the pd after all */
            return 1;
        }
        s->trusted = 0; /* the key, or the pd after it: the last */
        return 0;
    }
    return ++s->word < s->words;
}

/* The write of entry pc (kind, arg words) may be posted (DEV_FW_WRITE_POSTED:
 * the next access taken in the cycle its answer comes, the port answering in
 * order): unless it is the entry's last word and a WAIT follows, which polls
 * what the write started — a status read a cycle sooner would read BUSY and
 * be read again. */
static int fseq_may_post(const hca_fseq_t *s, const hca_fseq_port_t *p, uint32_t kind, uint32_t arg)
{
    if (kind == HCA_FSEQ_KIND_WRITE_RAM && s->word + 1 < arg)
        return 1;
    return s->pc + 1 == s->count || hca_fseq_entry_get_kind(fseq_entry(s, p, s->pc + 1)) != HCA_FSEQ_KIND_WAIT;
}

/* One device cycle of the sequencer, after the engine's: take the answer of
 * the access in flight, then post the next one (the port free of the
 * core's). Each access thus takes two cycles, as the core's port accesses
 * do at best, a posted write one (fseq_may_post); a *_RAM entry makes one
 * access per word. */
unsigned hca_fseq_tick(hca_fseq_t *s, const hca_fseq_port_t *p, int core_posted)
{
    unsigned answered = 0;
    if (!s->busy)
        return 0;
    hca_fseq_entry_t *e = fseq_entry(s, p, s->pc);
    uint32_t kind = hca_fseq_entry_get_kind(e), arg = hca_fseq_entry_get_arg(e);
    if (s->posted) {
        uint32_t v = 0;
        if (p->poll(p->ctx, &v) != 1)
            return 0;
        s->posted = 0;
        answered = 1;
        const int write = kind == HCA_FSEQ_KIND_WRITE || kind == HCA_FSEQ_KIND_WRITE_RAM;
        const uint32_t off = hca_fseq_entry_get_off(e) + 4u * s->word;
        uint32_t *ram = fseq_ram_kind(kind) ? fseq_ram(p, e->val, arg) : NULL; /* checked at its post */
        const uint32_t wv = ram ? ram[s->word] : e->val;
        p->answered(p->ctx, write, off, write ? wv : v);
        if (kind == HCA_FSEQ_KIND_WAIT) {
            const int busy = HCA_FWP_STATUS_BUSY_GET(v) != 0;
            if (busy && ++s->polls < HCA_FSEQ_WAIT_LIMIT)
                goto post; /* read it again */
            e->val = v;
            if (busy || !((arg >> HCA_FWP_STATUS_RESULT_GET(v)) & 1u)) {
                fseq_end(s, 0, 1);
                return answered;
            }
        } else if (kind == HCA_FSEQ_KIND_READ) {
            e->val = v;
        } else if (kind == HCA_FSEQ_KIND_READ_RAM || kind == HCA_FSEQ_KIND_READ_EVT) {
            ram[s->word] = v;
            if (kind == HCA_FSEQ_KIND_READ_EVT && s->word == 0) {
                if (v == 0) { /* the queue is empty */
                    fseq_end(s, 0, 1);
                    return answered;
                }
                s->words = fseq_evt_words(v, arg);
                s->trusted = s->words == HCA_EVT_INV_WORDS && (v >> HCA_FW_EVENT_INV_OK_LSB & 1u) &&
                             hca_evt_kind_invalidates(v >> HCA_FW_EVENT_KIND_LSB & ((1u << HCA_FW_EVENT_KIND_WIDTH) - 1u));
            } else if (kind == HCA_FSEQ_KIND_READ_EVT && s->word == HCA_EVT_KEY_WORD) {
                hca_fseq_evt_key(s->evt_idx, &s->evts, HCA_FSEQ_MAX_OPS, ram);
            }
        }
        if (ram && fseq_next_word(s, ram))
            goto post; /* the entry's next word */
        s->polls = s->word = 0;
        if (++s->pc == s->count) {
            fseq_end(s, 0, 0);
            return answered;
        }
        e = fseq_entry(s, p, s->pc);
        kind = hca_fseq_entry_get_kind(e);
        arg = hca_fseq_entry_get_arg(e);
    }
post:
    if (core_posted)
        return answered; /* the core's access first */
    {
        uint32_t *ram = NULL;
        if (kind > HCA_FSEQ_KIND_MAX || (fseq_ram_kind(kind) && !(ram = fseq_ram(p, e->val, arg)))) {
            fseq_end(s, 1, 0); /* no such entry kind, or RAM out of range */
            return answered;
        }
        const int write = kind == HCA_FSEQ_KIND_WRITE || kind == HCA_FSEQ_KIND_WRITE_RAM;
        if (p->post(p->ctx, write && fseq_may_post(s, p, kind, arg) ? DEV_FW_WRITE_POSTED : write,
                    hca_fseq_entry_get_off(e) + 4u * s->word, ram ? ram[s->word] : e->val)) {
            fseq_end(s, 1, 0); /* no register there */
            return answered;
        }
        s->posted = 1;
        if (s->word == 0)
            s->words = arg; /* a READ_EVT's may shrink once its first word is read */
    }
    return answered;
}

uint32_t hca_fseq_status(const hca_fseq_t *s)
{
    return HCA_FSEQ_STATUS_BUSY_PUT(s->busy) | HCA_FSEQ_STATUS_ERROR_PUT(s->error) |
           HCA_FSEQ_STATUS_STOPPED_PUT(s->stopped) | HCA_FSEQ_STATUS_DONE_PUT(s->pc);
}

