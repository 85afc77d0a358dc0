// The firmware's memory-management event service (firmware/mm.c, with
// mkey.c, pd.c and dev.c) compiled for the host with FW_HOST_REGS: every
// register access lands in a mock of the device's blocks — the translation
// unit's firmware port (tables kept), the ctx port (DRAIN), the event queue,
// the firmware DMA over a small host memory — which records each command in
// order. Checks SEMANTICS.md's rules one by one (each failing alone leaves the
// MR untouched: no WRITE_MTT, no WRITE_MPT), the exact MTT/MPT words of the
// registrations, INVALIDATE before DRAIN before DONE, and the probe.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <deque>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "cmd.h"
#include "console.h"
#include "dev.h"
#include "hca_fseq.h"
#include "mm.h"
#include "start.h"
}

namespace {

const uint64_t HOST_BASE = 0x10000000ull;
const size_t HOST_SIZE = 1 << 16;

enum Kind { FWP_CMD, CTX_CMD, EVT_POP, EVT_DONE, FDMA_READ, FDMA_WRITE };

struct Rec {
    Kind kind;
    unsigned op = 0;     // fwp / ctx op
    uint32_t index = 0;  // fwp / ctx index; DONE value
    uint32_t mpt[HCA_FWP_MPT_DATA_COUNT] = {};
    uint64_t mtt = 0;    // MTT staging at the command
    uint64_t host = 0;   // fdma
    uint32_t len = 0;
};

enum class Drain { OK, BAD_OP, STUCK };

struct Mock {
    // fwp
    uint32_t mpt_stage[HCA_FWP_MPT_DATA_COUNT] = {};
    uint32_t mtt_stage[2] = {};
    unsigned fwp_result = 0;
    std::map<uint32_t, hca_mpt_entry_t> mpt;
    std::map<uint32_t, uint64_t> mtt;
    int fail_fwp_op = -1; // the next command of this op answers BAD_INDEX
    int fail_fwp_skip = 0; // ... after this many of them passed
    // the registration bank FAST_REG commits from (xu_fw_port): the event each POP dropped, at POP.slot
    hca_fw_event_t bank[HCA_EVT_QUEUE_DEPTH] = {};
    // ctx
    Drain drain = Drain::OK;
    unsigned ctx_result = 0;
    bool ctx_busy = false;
    // evt
    bool evt_present = true;
    std::deque<std::vector<uint32_t>> events;
    int evt_accesses = 0, evt_faults = 0;
    // fdma
    uint32_t fdma_host_lo = 0, fdma_host_hi = 0, fdma_local = 0, fdma_len = 0, fdma_error = 0;
    std::vector<void *> locals;
    std::vector<uint8_t> host = std::vector<uint8_t>(HOST_SIZE);
    // fseq: a program runs whole at its RUN, through the same registers
    uint32_t fseq_prog = 0, fseq_status = 0;
    int fseq_runs = 0;
    unsigned evt_words_read = 0; // port words read by READ_EVT / READ_RAM entries (the events)
    // hdr.inv_ok as the device sets it (xlate_unit's verdict on the head, the
    // sequencer's guard: hca_fseq_evt_key); off: never set (the rules alone)
    bool verdicts = true;
    std::vector<Rec> log;
    std::string console;
};
Mock *M;

void *local(uint32_t a);
void fseq_run(uint32_t count);

// The translation unit's verdict on an invalidation at the head (abi
// fw_event.hdr.inv_ok): its MR-state rules against the MPT as it is now.
bool inv_verdict(const std::vector<uint32_t> &w)
{
    hca_fw_event_t e;
    memcpy(&e, w.data(), sizeof e);
    const unsigned kind = hca_fw_event_get_kind(&e);
    if (kind != HCA_EVT_KIND_LOCAL_INV && kind != HCA_EVT_KIND_REMOTE_INV && kind != HCA_EVT_KIND_READ_INV)
        return false;
    const uint32_t idx = e.key >> 8;
    if (idx == 0 || idx >= 1u << 12 || !M->mpt.count(idx)) // the SIZES below: 2^12 MPT entries
        return false;
    const hca_mpt_entry_t &m = M->mpt[idx];
    const unsigned k = hca_mpt_entry_get_kind(&m);
    return hca_mpt_entry_get_alloc(&m) && (k == HCA_MKEY_KIND_FAST_REG || k == HCA_MKEY_KIND_INDIRECT) &&
           m.key == e.key && m.pd == e.pd;
}

uint32_t evt_access(uint32_t off, bool write, uint32_t val)
{
    M->evt_accesses++;
    if (!M->evt_present) { // the bus faults: the trap entry calls the hook
        M->evt_faults++;
        fw_trap_frame_t f;
        memset(&f, 0, sizeof f);
        f.mcause = write ? 7 : 5;
        if (!fw_trap_hook || !fw_trap_hook(&f))
            ADD_FAILURE() << "unhandled access fault at evt offset " << off;
        return 0;
    }
    if (write) {
        Rec r;
        if (off == HCA_EVT_POP) {
            r.kind = EVT_POP;
            if (M->events.empty()) {
                ADD_FAILURE() << "POP with no event";
            } else {
                memcpy(&M->bank[HCA_EVT_POP_SLOT_GET(val)], M->events.front().data(), sizeof(hca_fw_event_t));
                M->events.pop_front();
            }
        } else if (off == HCA_EVT_DONE) {
            r.kind = EVT_DONE;
            r.index = HCA_EVT_DONE_STATUS_PUT(HCA_EVT_DONE_STATUS_GET(val)) |
                      HCA_EVT_DONE_TAG_PUT(HCA_EVT_DONE_TAG_GET(val)); // the fields the device reads (the rest ignored)
        } else {
            ADD_FAILURE() << "write to read-only evt offset " << off;
            return 0;
        }
        M->log.push_back(r);
        return 0;
    }
    if (off == HCA_EVT_STATUS)
        return HCA_EVT_STATUS_PENDING_PUT(!M->events.empty()) | HCA_EVT_STATUS_COUNT_PUT(M->events.size());
    if (off < HCA_EVT_DATA + 4 * HCA_EVT_DATA_COUNT) {
        if (M->events.empty())
            return 0;
        uint32_t w = M->events.front()[off / 4];
        if (off == HCA_EVT_DATA && M->verdicts && inv_verdict(M->events.front()))
            w |= 1u << HCA_FW_EVENT_INV_OK_LSB;
        return w;
    }
    ADD_FAILURE() << "read of evt offset " << off;
    return 0;
}

void fwp_cmd(uint32_t v)
{
    Rec r;
    r.kind = FWP_CMD;
    r.op = HCA_FWP_CMD_OP_GET(v);
    r.index = HCA_FWP_CMD_INDEX_GET(v);
    memcpy(r.mpt, M->mpt_stage, sizeof r.mpt);
    r.mtt = M->mtt_stage[0] | (uint64_t)M->mtt_stage[1] << 32;
    M->log.push_back(r);
    M->fwp_result = HCA_FWP_RESULT_OK;
    if ((int)r.op == M->fail_fwp_op && M->fail_fwp_skip-- <= 0) {
        M->fail_fwp_op = -1;
        M->fwp_result = HCA_FWP_RESULT_BAD_INDEX;
        return;
    }
    switch (r.op) {
    case HCA_FWP_OP_WRITE_MPT: memcpy(&M->mpt[r.index], M->mpt_stage, sizeof(hca_mpt_entry_t)); break;
    case HCA_FWP_OP_WRITE_MTT: M->mtt[r.index] = r.mtt; break;
    case HCA_FWP_OP_READ_MPT: memcpy(M->mpt_stage, &M->mpt[r.index], sizeof(hca_mpt_entry_t)); break;
    case HCA_FWP_OP_INVALIDATE: hca_mpt_entry_set_state(&M->mpt[r.index], HCA_MKEY_STATE_FREE); break;
    case HCA_FWP_OP_FAST_REG: { // abi/hca.toml fwp_op FAST_REG, over the bank slot's event
        const hca_fw_event_t &e = M->bank[r.index % HCA_EVT_QUEUE_DEPTH];
        if (r.index >= HCA_EVT_QUEUE_DEPTH || hca_fw_event_get_kind(&e) != HCA_EVT_KIND_FAST_REG_MR ||
            !hca_fw_event_get_wqe_ok(&e)) {
            ADD_FAILURE() << "FAST_REG of slot " << r.index << ": not a FAST_REG_MR with wqe_ok";
            M->fwp_result = HCA_FWP_RESULT_BAD_OP;
            break;
        }
        hca_mpt_entry_t &m = M->mpt[e.key >> 8];
        m = hca_mpt_entry_t{e.mpt_flags, e.key, m.pd, m.mtt_base, e.iova, e.length, 1, 0};
        M->mtt[m.mtt_base] = e.list | 1u;
        break;
    }
    default: break;
    }
}

void fdma_start()
{
    Rec r;
    r.host = (uint64_t)M->fdma_host_hi << 32 | M->fdma_host_lo;
    r.len = M->fdma_len;
    M->fdma_error = 1;
    uint32_t h = (M->fdma_local & 0x7fffffffu) / 8;
    if (r.len == 0 || r.len > HCA_FDMA_MAX_LEN || !(M->fdma_local & 0x80000000u) || (M->fdma_local & 7) ||
        h >= M->locals.size() ||
        r.host < HOST_BASE || r.host - HOST_BASE + r.len > HOST_SIZE)
        return;
    M->fdma_error = 0;
    r.kind = FDMA_READ;
    M->log.push_back(r);
    memcpy(M->locals[h], &M->host[r.host - HOST_BASE], r.len);
}

} // namespace

extern "C" {
fw_trap_hook_t volatile fw_trap_hook;
uint32_t reg_read(uint32_t addr);
void reg_write(uint32_t addr, uint32_t val);

uint32_t fw_local_addr(void *p)
{
    // 8 apart, as fseq GO counts entries of RAM (HCA_FW_RAM_BASE is 0x80000000)
    M->locals.push_back(p);
    return 0x80000000u | (uint32_t)(M->locals.size() - 1) * 8;
}

uint32_t reg_read(uint32_t addr)
{
    if (addr == HCA_FW_FSEQ_BASE + HCA_FSEQ_STATUS || addr == HCA_FW_FSEQ_BASE + HCA_FSEQ_IDLE)
        return M->fseq_status; // a program runs whole at its RUN / GO: idle at once
    if (addr >= HCA_FW_EVT_BASE && addr < HCA_FW_EVT_BASE + 0x40)
        return evt_access(addr - HCA_FW_EVT_BASE, false, 0);
    if (addr == HCA_FWP_BASE + HCA_FWP_STATUS)
        return HCA_FWP_STATUS_RESULT_PUT(M->fwp_result);
    if (addr == HCA_FWP_BASE + HCA_FWP_SIZES)
        return HCA_FWP_SIZES_MPT_LOG2_PUT(12) | HCA_FWP_SIZES_MTT_LOG2_PUT(16);
    if (addr >= HCA_FWP_BASE + HCA_FWP_MPT_DATA && addr < HCA_FWP_BASE + HCA_FWP_MPT_DATA + 4 * HCA_FWP_MPT_DATA_COUNT)
        return M->mpt_stage[(addr - HCA_FWP_BASE - HCA_FWP_MPT_DATA) / 4]; // READ_MPT's entry
    if (addr == HCA_FW_CTX_BASE + HCA_CTX_STATUS)
        return HCA_CTX_STATUS_BUSY_PUT(M->ctx_busy) | HCA_CTX_STATUS_RESULT_PUT(M->ctx_result);
    if (addr == HCA_FDMA_BASE + HCA_FDMA_STATUS)
        return HCA_FDMA_STATUS_ERROR_PUT(M->fdma_error);
    ADD_FAILURE() << "read of " << std::hex << addr;
    return 0;
}

void reg_write(uint32_t addr, uint32_t val)
{
    if (addr == HCA_FW_FSEQ_BASE + HCA_FSEQ_PROG) {
        M->fseq_prog = val;
        return;
    }
    if (addr == HCA_FW_FSEQ_BASE + HCA_FSEQ_RUN) {
        fseq_run(HCA_FSEQ_RUN_COUNT_GET(val));
        return;
    }
    if (addr == HCA_FW_FSEQ_BASE + HCA_FSEQ_GO) {
        EXPECT_LT(M->locals.size(), 1u << HCA_FSEQ_GO_ENTRY_WIDTH) << "a handle GO cannot name";
        M->fseq_prog = HCA_FW_RAM_BASE + 8 * HCA_FSEQ_GO_ENTRY_GET(val);
        fseq_run(HCA_FSEQ_GO_COUNT_GET(val));
        return;
    }
    if (addr >= HCA_FW_EVT_BASE && addr < HCA_FW_EVT_BASE + 0x40) {
        evt_access(addr - HCA_FW_EVT_BASE, true, val);
        return;
    }
    uint32_t off = addr - HCA_FWP_BASE;
    if (addr >= HCA_FWP_BASE && off < HCA_FWP_MTT_DATA) {
        M->mpt_stage[off / 4] = val;
        return;
    }
    if (addr >= HCA_FWP_BASE && off < HCA_FWP_CMD) {
        M->mtt_stage[(off - HCA_FWP_MTT_DATA) / 4] = val;
        return;
    }
    if (addr == HCA_FWP_BASE + HCA_FWP_CMD) {
        fwp_cmd(val);
        return;
    }
    if (addr == HCA_FW_CTX_BASE + HCA_CTX_CMD) {
        Rec r;
        r.kind = CTX_CMD;
        r.op = HCA_CTX_CMD_OP_GET(val);
        r.index = HCA_CTX_CMD_INDEX_GET(val);
        M->log.push_back(r);
        M->ctx_busy = M->drain == Drain::STUCK;
        M->ctx_result = M->drain == Drain::BAD_OP || r.op != HCA_CTX_OP_DRAIN ? HCA_FWP_RESULT_BAD_OP : HCA_FWP_RESULT_OK;
        return;
    }
    switch (addr - HCA_FDMA_BASE) {
    case HCA_FDMA_HOST_LO: M->fdma_host_lo = val; return;
    case HCA_FDMA_HOST_HI: M->fdma_host_hi = val; return;
    case HCA_FDMA_LOCAL: M->fdma_local = val; return;
    case HCA_FDMA_LEN: M->fdma_len = val; return;
    case HCA_FDMA_CTRL:
        if (HCA_FDMA_CTRL_WRITE_GET(val))
            ADD_FAILURE() << "the event service never writes host memory";
        fdma_start();
        return;
    default: break;
    }
    ADD_FAILURE() << "write of " << std::hex << addr;
}

void con_putc(char c)
{
    M->console += c;
}

void con_puts(const char *s)
{
    M->console += s;
}

void con_puthex(uint32_t v)
{
    char b[16];
    snprintf(b, sizeof b, "0x%08x", v);
    M->console += b;
}
}

namespace {

// The firmware RAM address a (a handle from fw_local_addr) as a host pointer.
void *local(uint32_t a)
{
    uint32_t h = (a & 0x7fffffffu) / 8;
    if (!(a & 0x80000000u) || (a & 7) || h >= M->locals.size()) {
        ADD_FAILURE() << "not a firmware RAM address: " << std::hex << a;
        return nullptr;
    }
    return M->locals[h];
}

// The port sequencer as sim/device/hca_dev.c runs it (regs fseq), all at
// once: each entry through the mocked registers, in order.
void fseq_run(uint32_t count)
{
    M->fseq_runs++;
    auto *e = static_cast<hca_fseq_entry_t *>(local(M->fseq_prog));
    uint32_t done = 0, error = 0, stopped = 0;
    uint32_t seen[HCA_FSEQ_MAX_OPS], nseen = 0; // READ_EVT's key indexes (hca_fseq_evt_key)
    if (!e || count == 0 || count > HCA_FSEQ_MAX_OPS)
        error = 1;
    for (; !error && !stopped && done < count; done++) {
        hca_fseq_entry_t &x = e[done];
        const uint32_t addr = HCA_DEVREG_BASE + hca_fseq_entry_get_off(&x), arg = hca_fseq_entry_get_arg(&x);
        switch (hca_fseq_entry_get_kind(&x)) {
        case HCA_FSEQ_KIND_WRITE: reg_write(addr, x.val); break;
        case HCA_FSEQ_KIND_READ: x.val = reg_read(addr); break;
        case HCA_FSEQ_KIND_WAIT: {
            uint32_t v = 0, n = 0;
            do
                v = reg_read(addr);
            while (HCA_FWP_STATUS_BUSY_GET(v) && ++n < HCA_FSEQ_WAIT_LIMIT);
            x.val = v;
            if (HCA_FWP_STATUS_BUSY_GET(v) || !((arg >> HCA_FWP_STATUS_RESULT_GET(v)) & 1u))
                stopped = 1;
            break;
        }
        case HCA_FSEQ_KIND_WRITE_RAM:
        case HCA_FSEQ_KIND_READ_RAM:
        case HCA_FSEQ_KIND_READ_EVT: {
            auto *w = static_cast<uint32_t *>(local(x.val));
            if (!w || arg == 0 || arg > HCA_FSEQ_MAX_WORDS) {
                error = 1;
                break;
            }
            uint32_t words = arg;
            for (uint32_t i = 0; i < words; i++) {
                if (hca_fseq_entry_get_kind(&x) == HCA_FSEQ_KIND_WRITE_RAM)
                    reg_write(addr + 4 * i, w[i]);
                else
                    w[i] = reg_read(addr + 4 * i), M->evt_words_read++;
                // READ_EVT: an empty queue stops the program; an invalidation's words and a wqe_ok FAST_REG_MR's end with key
                if (hca_fseq_entry_get_kind(&x) == HCA_FSEQ_KIND_READ_EVT && i == 0 && w[0] == 0) {
                    stopped = 1;
                    break;
                }
                if (hca_fseq_entry_get_kind(&x) == HCA_FSEQ_KIND_READ_EVT && i == 0 &&
                    hca_evt_reads_short(w[0]))
                    words = std::min(words, (uint32_t)HCA_EVT_INV_WORDS);
                if (hca_fseq_entry_get_kind(&x) == HCA_FSEQ_KIND_READ_EVT && i == HCA_EVT_KEY_WORD)
                    hca_fseq_evt_key(seen, &nseen, HCA_FSEQ_MAX_OPS, w);
            }
            break;
        }
        default: error = 1; break;
        }
        if (error || stopped)
            break;
    }
    M->fseq_status =
        HCA_FSEQ_STATUS_ERROR_PUT(error) | HCA_FSEQ_STATUS_STOPPED_PUT(stopped) | HCA_FSEQ_STATUS_DONE_PUT(done);
}

uint32_t params(unsigned ps, unsigned access, unsigned n)
{
    return ps << HCA_SQ_WQE_FR_PAGE_SHIFT_LSB | access << HCA_SQ_WQE_FR_ACCESS_LSB | n << HCA_SQ_WQE_FR_LIST_LEN_LSB;
}

const unsigned LW = HCA_ACCESS_LOCAL_WRITE, RR = HCA_ACCESS_REMOTE_READ, RW = HCA_ACCESS_REMOTE_WRITE;

class FwMm : public ::testing::Test {
protected:
    Mock mock;
    uint32_t pd = 0, pd2 = 0;
    void SetUp() override
    {
        M = &mock;
        mm_reset();
        mkey_reset();
        ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, pd_alloc(&pd));
        ASSERT_EQ((unsigned)HCA_CMD_STATUS_OK, pd_alloc(&pd2));
        EXPECT_EQ(0, mock.evt_accesses) << "key bookkeeping set-up never touches the event queue";
    }
    void TearDown() override
    {
        M = nullptr;
    }

    // A new MR through CREATE_MKEY (npages = max list length); the log is cleared.
    uint32_t mr(unsigned kind, uint32_t max, uint32_t in_pd = 0)
    {
        hca_create_mkey_in_t in;
        memset(&in, 0, sizeof in);
        in.pd = in_pd ? in_pd : pd;
        hca_create_mkey_in_set_kind(&in, kind);
        in.npages = max;
        if (kind == HCA_MKEY_KIND_REGULAR) {
            hca_create_mkey_in_set_page_shift(&in, 12);
            hca_create_mkey_in_set_access(&in, LW);
            in.length = 4096;
            uint64_t page = 0x7000000;
            memcpy(&mock.host[0xf000], &page, 8);
            in.page_list = HOST_BASE + 0xf000;
        }
        memcpy(&mock.host[0xff00], &in, sizeof in);
        uint32_t key = 0;
        EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, mkey_create(HOST_BASE + 0xff00, &key)) << mock.console;
        mock.log.clear();
        mock.console.clear();
        return key;
    }
    static hca_fw_event_t ev(unsigned kind, uint32_t pd, uint32_t key, unsigned tag = 7)
    {
        hca_fw_event_t e;
        memset(&e, 0, sizeof e);
        hca_fw_event_set_kind(&e, kind);
        hca_fw_event_set_tag(&e, tag);
        hca_fw_event_set_qpn(&e, 3);
        e.pd = pd;
        e.key = key;
        return e;
    }
    // What the send engine adds to a FAST_REG_MR whose WQE passes the rules
    // that read only the WQE (fw_event.wqe_ok, mpt_flags; abi/hca.toml): the
    // firmware's fast path trusts them for those rules.
    static hca_fw_event_t engine_ok(hca_fw_event_t e)
    {
        hca_mpt_entry_t f;
        memset(&f, 0, sizeof f);
        hca_mpt_entry_set_alloc(&f, 1);
        hca_mpt_entry_set_state(&f, HCA_MKEY_STATE_VALID);
        hca_mpt_entry_set_kind(&f, HCA_MKEY_KIND_FAST_REG);
        hca_mpt_entry_set_mode(&f, HCA_MKEY_MODE_MTT);
        hca_mpt_entry_set_access(&f, e.params >> HCA_SQ_WQE_FR_ACCESS_LSB);
        hca_mpt_entry_set_page_shift(&f, e.params >> HCA_SQ_WQE_FR_PAGE_SHIFT_LSB);
        hca_fw_event_set_wqe_ok(&e, 1);
        e.mpt_flags = f.flags;
        return e;
    }
    void queue(const hca_fw_event_t &e)
    {
        std::vector<uint32_t> w(HCA_EVT_DATA_COUNT);
        memcpy(w.data(), &e, sizeof e);
        mock.events.push_back(w);
    }
    // Serve one event; returns the DONE status (and checks the tag and POP first).
    unsigned serve(const hca_fw_event_t &e)
    {
        mock.log.clear();
        queue(e);
        mm_service();
        EXPECT_TRUE(mock.events.empty());
        if (mock.log.size() < 2) {
            ADD_FAILURE() << "no POP/DONE";
            return ~0u;
        }
        EXPECT_EQ(EVT_POP, mock.log.front().kind) << "POP comes first";
        const Rec &d = mock.log.back();
        EXPECT_EQ(EVT_DONE, d.kind);
        EXPECT_EQ(hca_fw_event_get_tag(&e), HCA_EVT_DONE_TAG_GET(d.index));
        return HCA_EVT_DONE_STATUS_GET(d.index);
    }
    size_t count(unsigned op, Kind k = FWP_CMD) const
    {
        size_t n = 0;
        for (const Rec &r : mock.log)
            n += r.kind == k && r.op == op;
        return n;
    }
    size_t table_writes() const
    {
        return count(HCA_FWP_OP_WRITE_MPT) + count(HCA_FWP_OP_WRITE_MTT) + count(HCA_FWP_OP_FAST_REG);
    }
    uint64_t put_pages(const std::vector<uint64_t> &pages, size_t off = 0x1000)
    {
        memcpy(&mock.host[off], pages.data(), 8 * pages.size());
        return HOST_BASE + off;
    }
    hca_mpt_entry_t mpt_of(uint32_t key)
    {
        return mock.mpt[key >> 8];
    }
    mkey_t shadow(uint32_t key)
    {
        const mkey_t *m = mkey_get(key >> 8);
        EXPECT_NE(nullptr, m);
        return m ? *m : mkey_t{};
    }

    // The MRs a FAST_REG_MR rule test registers on or names, created in this
    // order: k (the target), valid (made VALID by the test), then one of
    // each other kind, one of another PD, another FREE one.
    struct FrMrs {
        uint32_t k, valid, regular, indirect, dma, other_pd, free2;
    };
    FrMrs fr_mrs()
    {
        return FrMrs{mr(HCA_MKEY_KIND_FAST_REG, 4), mr(HCA_MKEY_KIND_FAST_REG, 4),  mr(HCA_MKEY_KIND_REGULAR, 1),
                     mr(HCA_MKEY_KIND_INDIRECT, 4), mr(HCA_MKEY_KIND_DMA, 0),       mr(HCA_MKEY_KIND_FAST_REG, 4, pd2),
                     mr(HCA_MKEY_KIND_FAST_REG, 4)};
    }
    // e is refused MW_BIND_ERR by rule: one FAST_REG_MR console line naming it, nothing written.
    void expect_fr_refused(const hca_fw_event_t &e, const char *rule)
    {
        mock.console.clear();
        EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(e));
        EXPECT_EQ(0u, table_writes()) << "nothing written";
        EXPECT_EQ(0u, mock.console.rfind("hcafw: FAST_REG_MR key ", 0)) << mock.console;
        EXPECT_NE(std::string::npos, mock.console.find(rule)) << mock.console;
        EXPECT_EQ(1, std::count(mock.console.begin(), mock.console.end(), '\n')) << "one line: " << mock.console;
    }
    // After the refusals: k's MPT entry and the MTT as before, k and free2 FREE with their key bytes.
    void expect_fr_untouched(const FrMrs &r, const hca_mpt_entry_t &mpt_before,
                             const std::map<uint32_t, uint64_t> &mtt_before)
    {
        EXPECT_EQ(0, memcmp(&mpt_before, &mock.mpt[r.k >> 8], sizeof mpt_before));
        EXPECT_EQ(mtt_before, mock.mtt);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(r.k).state);
        EXPECT_EQ(r.k & 0xff, shadow(r.k).key_byte);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(r.free2).state) << "the MR the mismatched keys named";
        EXPECT_EQ(r.free2 & 0xff, shadow(r.free2).key_byte);
    }
};

// ---------------------------------------------------------------- probe

TEST_F(FwMm, ADeviceWithoutTheEventQueueIsProbedOnceAndNeverTouchedAgain)
{
    mock.evt_present = false;
    mm_service();
    EXPECT_EQ(1, mock.evt_faults);
    EXPECT_NE(std::string::npos, mock.console.find("no event queue")) << mock.console;
    mm_service();
    mm_service();
    EXPECT_EQ(1, mock.evt_accesses) << "one probe, then never again";
    EXPECT_EQ(nullptr, fw_trap_hook) << "the probe gives the trap hook back";
}

TEST_F(FwMm, NothingPendingDoesNothing)
{
    mm_service();
    mm_service();
    EXPECT_TRUE(mock.log.empty());
    EXPECT_TRUE(mock.console.empty()) << mock.console;
}

TEST_F(FwMm, SeveralEventsAreServedInOrderEachAnsweredWithItsTag)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 4);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k, 0x11));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k ^ 1, 0x22));
    queue(ev(0xf, pd, k, 0x33));
    mm_service();
    std::vector<uint32_t> done;
    for (const Rec &r : mock.log)
        if (r.kind == EVT_DONE)
            done.push_back(r.index);
    ASSERT_EQ(3u, done.size());
    EXPECT_EQ(0x11u << 8 | HCA_WC_STATUS_SUCCESS, done[0]);
    EXPECT_EQ(0x22u << 8 | HCA_WC_STATUS_MW_BIND_ERR, done[1]);
    EXPECT_EQ(0x33u << 8 | HCA_WC_STATUS_GENERAL_ERR, done[2]) << "an unknown kind";
    EXPECT_EQ(3u, count(0, EVT_POP));
    EXPECT_NE(std::string::npos, mock.console.find("unknown event kind")) << mock.console;
}

// ---------------------------------------------------------------- FAST_REG_MR

struct FastRegCase {
    hca_fw_event_t e;
    std::vector<uint64_t> pages;
};

TEST_F(FwMm, FastRegWritesThePagesThenAValidMptWithTheWrsKey)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 8);
    mkey_t before = shadow(k);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, before.state);
    uint32_t newkey = (k & ~0xffu) | 0x5a;
    // 64 KiB pages, first byte offset 0x1234, length up to the last byte of page 3.
    std::vector<uint64_t> pages = {0x40000000, 0x12340000, 0x7ff0000, 0x100000000ull};
    hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, newkey, 0x9c);
    e.params = params(16, LW | RR | RW, 4);
    e.iova = 0x2000000001234ull;
    e.length = 4 * 0x10000 - 0x1234;
    e.list = put_pages(pages);
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
    // POP, one list read, 4 MTT writes, the MPT, DONE.
    ASSERT_EQ(8u, mock.log.size());
    EXPECT_EQ(FDMA_READ, mock.log[1].kind);
    EXPECT_EQ(e.list, mock.log[1].host);
    EXPECT_EQ(32u, mock.log[1].len);
    for (unsigned i = 0; i < 4; i++) {
        const Rec &w = mock.log[2 + i];
        EXPECT_EQ((unsigned)HCA_FWP_OP_WRITE_MTT, w.op);
        EXPECT_EQ(before.mtt_base + i, w.index);
        EXPECT_EQ(pages[i] | 1u, w.mtt) << "present, pfn = addr >> 12";
    }
    const Rec &m = mock.log[6];
    ASSERT_EQ((unsigned)HCA_FWP_OP_WRITE_MPT, m.op);
    EXPECT_EQ(k >> 8, m.index);
    hca_mpt_entry_t got;
    memcpy(&got, m.mpt, sizeof got);
    EXPECT_EQ(1u, hca_mpt_entry_get_alloc(&got));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&got));
    EXPECT_EQ((unsigned)HCA_MKEY_KIND_FAST_REG, hca_mpt_entry_get_kind(&got));
    EXPECT_EQ((unsigned)HCA_MKEY_MODE_MTT, hca_mpt_entry_get_mode(&got));
    EXPECT_EQ(0u, hca_mpt_entry_get_peer(&got));
    EXPECT_EQ(LW | RR | RW, hca_mpt_entry_get_access(&got));
    EXPECT_EQ(16u, hca_mpt_entry_get_page_shift(&got));
    EXPECT_EQ(newkey, got.key);
    EXPECT_EQ(pd, got.pd);
    EXPECT_EQ(before.mtt_base, got.mtt_base);
    EXPECT_EQ(e.iova, got.iova);
    EXPECT_EQ(e.length, got.length);
    EXPECT_EQ(4u, got.mtt_count) << "the pages of this registration";
    EXPECT_EQ(0u, got.reserved);
    // The shadow follows: VALID, the new key byte.
    mkey_t after = shadow(k);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, after.state);
    EXPECT_EQ(0x5au, after.key_byte);
    EXPECT_EQ(before.mtt_count, after.mtt_count) << "the MTT space owned does not change";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_BAD_INDEX, mkey_destroy(k)) << "the old key is gone";
    EXPECT_EQ((unsigned)HCA_CMD_STATUS_OK, mkey_destroy(newkey));
    // The next life of the index takes a key byte other than the last one.
    uint32_t again = mr(HCA_MKEY_KIND_FAST_REG, 8);
    if ((again >> 8) == (k >> 8)) {
        EXPECT_NE(0x5au, again & 0xff);
    }
}

TEST_F(FwMm, FastRegEachRuleFailingAloneLeavesTheMrUntouched)
{
    const FrMrs r = fr_mrs();
    const uint32_t k = r.k, valid = r.valid, free2 = r.free2;
    hca_fw_event_t good = ev(HCA_EVT_KIND_FAST_REG_MR, pd, (k & ~0xffu) | 0x77);
    good.mr_key = k; // the MR as the consumer holds it: another key byte than the WR's, not compared
    good.params = params(12, LW | RW, 4);
    good.iova = 0x10000ffe;
    good.length = 4 * 4096 - 0xffe; // exactly fills the list
    const std::vector<uint64_t> pages = {0x1000, 0x2000, 0x3000, 0xfffff000};
    // Make `valid` VALID.
    hca_fw_event_t v = good;
    v.key = valid;
    v.mr_key = valid;
    v.list = put_pages(pages, 0x3000);
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(v)) << mock.console;
    struct Case {
        const char *what, *rule;
        std::function<void(hca_fw_event_t &, std::vector<uint64_t> &)> mutate;
    };
    // The WR names the MR of its key (rules other than the index's).
    auto key_of = [](uint32_t key) {
        return [key](hca_fw_event_t &e, std::vector<uint64_t> &) { e.key = e.mr_key = key; };
    };
    auto mr_key_of = [](uint32_t key) { return [key](hca_fw_event_t &e, std::vector<uint64_t> &) { e.mr_key = key; }; };
    const Case cases[] = {
        {"key of another FREE MR", "the WR's key index differs from the MR's", [free2](hca_fw_event_t &e, std::vector<uint64_t> &) {
             e.key = (free2 & ~0xffu) | 0x77;
         }},
        {"MR named: another FREE MR", "the WR's key index differs from the MR's", mr_key_of(free2)},
        {"MR named: unallocated index", "the WR's key index differs from the MR's", mr_key_of(0xabc00 | 0x77)},
        {"MR named: index 0, key byte 1", "the WR's key index differs from the MR's", mr_key_of(HCA_RESERVED_LKEY)},
        {"index 0", "names no allocated MR", key_of(0x77)},
        {"unallocated index", "names no allocated MR", key_of(0xabc00 | 0x77)},
        {"regular MR", "not fast_reg", key_of(r.regular)},
        {"indirect MR", "not fast_reg", key_of(r.indirect)},
        {"dma MR", "not fast_reg", key_of(r.dma)},
        {"VALID MR", "is VALID", key_of(valid)},
        {"PD", "PD is not the QP's", [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.pd++; }},
        {"MR of another PD", "PD is not the QP's", key_of(r.other_pd)},
        {"page_list_len 0", "page_list_len",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.params = params(12, LW | RW, 0); }},
        {"page_list_len above max", "page_list_len",
         [](hca_fw_event_t &e, std::vector<uint64_t> &p) {
             e.params = params(12, LW | RW, 5);
             p.push_back(0x5000);
         }},
        {"page_shift 11", "page_shift",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.params = params(11, LW | RW, 4); }},
        {"page_shift 31", "page_shift",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.params = params(31, LW | RW, 4); }},
        {"first page unaligned", "not aligned", [](hca_fw_event_t &, std::vector<uint64_t> &p) { p[0] |= 0x800; }},
        {"last page unaligned", "not aligned", [](hca_fw_event_t &, std::vector<uint64_t> &p) { p[3] += 8; }},
        {"one byte past the list", "page_list_len << page_shift",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.length++; }},
        {"first byte offset past the list", "page_list_len << page_shift",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.iova++; }},
        {"length 0", "length is 0", [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.length = 0; }},
        {"iova + length wraps", "wraps",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.iova = ~0ull - 0xfff + 0x800; }},
        {"remote write without local write", "access flags",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.params = params(12, RW, 4); }},
        {"remote atomic without local write", "access flags",
         [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.params = params(12, HCA_ACCESS_REMOTE_ATOMIC, 4); }},
        {"list unreachable", "could not be read", [](hca_fw_event_t &e, std::vector<uint64_t> &) { e.list = 8; }},
    };
    const hca_mpt_entry_t mpt_before = mpt_of(k);
    const std::map<uint32_t, uint64_t> mtt_before = mock.mtt;
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        hca_fw_event_t e = good;
        std::vector<uint64_t> p = pages;
        c.mutate(e, p);
        if (e.list == 0)
            e.list = put_pages(p);
        expect_fr_refused(e, c.rule);
    }
    expect_fr_untouched(r, mpt_before, mtt_before);
    // The unmodified WR (the limits exactly met) succeeds on the untouched MR.
    hca_fw_event_t e = good;
    e.list = put_pages(pages);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
    e.params = params(30, LW, 1); // the largest page, one of them
    e.mr_key = 0;                 // no MR named: the key's
    e.key = mr(HCA_MKEY_KIND_FAST_REG, 1);
    e.iova = 0;
    e.length = 1ull << 30;
    e.list = put_pages({0x40000000});
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
}

TEST_F(FwMm, FastRegOfTheLongestListReadsItInChunksAndChecksEveryPageFirst)
{
    const unsigned N = HCA_MAX_FAST_REG_PAGE_LIST_LEN;
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, N);
    std::vector<uint64_t> pages(N);
    for (unsigned i = 0; i < N; i++)
        pages[i] = 0x100000000ull + 0x1000ull * (N - i);
    hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k);
    e.params = params(12, LW, N);
    e.iova = 0x5000;
    e.length = (uint64_t)N << 12;
    // A bad address in the last chunk: nothing written at all.
    pages[N - 1] |= 0x100;
    e.list = put_pages(pages);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(e));
    EXPECT_EQ(0u, table_writes());
    pages[N - 1] &= ~0xfffull;
    e.list = put_pages(pages);
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
    // The list, 4096 bytes, in transfers of MM_FDMA_CHUNK (1000 in this build), in order.
    std::vector<std::pair<uint64_t, uint32_t>> reads;
    for (const Rec &r : mock.log)
        if (r.kind == FDMA_READ)
            reads.push_back({r.host, r.len});
    ASSERT_EQ(5u, reads.size());
    uint64_t at = e.list;
    for (size_t i = 0; i < reads.size(); i++) {
        EXPECT_EQ(at, reads[i].first);
        EXPECT_EQ(i < 4 ? 1000u : 96u, reads[i].second);
        at += reads[i].second;
    }
    EXPECT_EQ((size_t)N, count(HCA_FWP_OP_WRITE_MTT));
    const mkey_t s = shadow(k);
    for (unsigned i = 0; i < N; i++)
        ASSERT_EQ(pages[i] | 1, mock.mtt[s.mtt_base + i]) << i;
    EXPECT_EQ(N, mpt_of(k).mtt_count);
    EXPECT_EQ(FWP_CMD, mock.log[mock.log.size() - 2].kind);
    EXPECT_EQ((unsigned)HCA_FWP_OP_WRITE_MPT, mock.log[mock.log.size() - 2].op) << "the MPT after every MTT entry";
}

TEST_F(FwMm, ATranslationUnitRefusalIsARefusedRegistrationAndTheMrStaysFree)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k);
    e.params = params(12, LW, 1);
    e.length = 10;
    e.list = put_pages({0x9000});
    mock.fail_fwp_op = HCA_FWP_OP_WRITE_MPT;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(e));
    EXPECT_NE(std::string::npos, mock.console.find("refused WRITE_MPT")) << mock.console;
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e));
}

// ---------------------------------------------------------------- invalidation

TEST_F(FwMm, LocalInvIsInvalidateThenDrainThenDoneAndTheMrCanBeRegisteredAgain)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    uint32_t k1 = (k & ~0xffu) | 0x42;
    hca_fw_event_t reg = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k1);
    reg.params = params(12, LW | RR, 2);
    reg.length = 8192;
    reg.list = put_pages({0x1000, 0x2000});
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(reg)) << mock.console;

    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k)))
        << "the key the FAST_REG_MR replaced";
    EXPECT_EQ(0u, count(HCA_FWP_OP_INVALIDATE) + count(HCA_CTX_OP_DRAIN, CTX_CMD));

    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k1, 0x5))) << mock.console;
    ASSERT_EQ(4u, mock.log.size());
    EXPECT_EQ(EVT_POP, mock.log[0].kind);
    EXPECT_EQ(FWP_CMD, mock.log[1].kind);
    EXPECT_EQ((unsigned)HCA_FWP_OP_INVALIDATE, mock.log[1].op);
    EXPECT_EQ(k >> 8, mock.log[1].index);
    EXPECT_EQ(CTX_CMD, mock.log[2].kind);
    EXPECT_EQ((unsigned)HCA_CTX_OP_DRAIN, mock.log[2].op);
    EXPECT_EQ(EVT_DONE, mock.log[3].kind);
    EXPECT_EQ(0x5u << 8 | HCA_WC_STATUS_SUCCESS, mock.log[3].index);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, hca_mpt_entry_get_state(&mock.mpt[k >> 8]));
    EXPECT_EQ(0x42u, shadow(k).key_byte) << "the key stays until the next registration";

    // Invalidating it again with its current key succeeds (and fences again).
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_READ_INV, pd, k1)));
    EXPECT_EQ(1u, count(HCA_FWP_OP_INVALIDATE));
    EXPECT_EQ(1u, count(HCA_CTX_OP_DRAIN, CTX_CMD));

    // Registered again under a new key byte; the old one no longer invalidates.
    reg.key = (k & ~0xffu) | 0x43;
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(reg)) << mock.console;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k1)));
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, reg.key)));
}

TEST_F(FwMm, InvalidationRulesEachFailingAloneIssueNothing)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    uint32_t regular = mr(HCA_MKEY_KIND_REGULAR, 1);
    uint32_t dma = mr(HCA_MKEY_KIND_DMA, 0);
    uint32_t other = mr(HCA_MKEY_KIND_FAST_REG, 2, pd2);
    struct Case {
        const char *what, *rule;
        uint32_t pd, key;
    } cases[] = {
        {"index 0", "names no allocated MR", pd, 0x00000001},
        {"unallocated index", "names no allocated MR", pd, 0x00fff000 | (k & 0xff)},
        {"another key byte", "not the MR's current key", pd, k ^ 0x80},
        {"regular MR", "neither fast_reg nor indirect", pd, regular},
        {"dma MR", "neither fast_reg nor indirect", pd, dma},
        {"QP of another PD", "PD is not the QP's", pd2, k},
        {"MR of another PD", "PD is not the QP's", pd, other},
    };
    const unsigned kinds[] = {HCA_EVT_KIND_LOCAL_INV, HCA_EVT_KIND_READ_INV, HCA_EVT_KIND_REMOTE_INV};
    for (unsigned kind : kinds) {
        for (const Case &c : cases) {
            SCOPED_TRACE(std::string(hca_evt_kind_name(kind)) + ": " + c.what);
            mock.console.clear();
            EXPECT_EQ(kind == HCA_EVT_KIND_REMOTE_INV ? (unsigned)HCA_WC_STATUS_REM_INV_REQ_ERR
                                                      : (unsigned)HCA_WC_STATUS_MW_BIND_ERR,
                      serve(ev(kind, c.pd, c.key)));
            EXPECT_EQ(2u, mock.log.size()) << "POP and DONE only: no INVALIDATE, no DRAIN";
            EXPECT_EQ(0u, mock.console.rfind(std::string("hcafw: ") + hca_evt_kind_name(kind) + " key ", 0))
                << mock.console;
            EXPECT_NE(std::string::npos, mock.console.find(c.rule)) << mock.console;
        }
    }
    // A FREE MR (never registered) with its current key: succeeds, every kind.
    for (unsigned kind : kinds) {
        EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(kind, pd, k)));
        EXPECT_EQ(1u, count(HCA_FWP_OP_INVALIDATE));
    }
    // An indirect MR is invalidated too.
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS,
              serve(ev(HCA_EVT_KIND_REMOTE_INV, pd, mr(HCA_MKEY_KIND_INDIRECT, 2))));
}

TEST_F(FwMm, DrainBadOpIsNothingToDrainButAStuckDrainFails)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    mock.drain = Drain::BAD_OP;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k)));
    mock.drain = Drain::STUCK;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_REM_INV_REQ_ERR, serve(ev(HCA_EVT_KIND_REMOTE_INV, pd, k)));
    EXPECT_NE(std::string::npos, mock.console.find("DRAIN did not complete")) << mock.console;
    mock.drain = Drain::OK;
    mock.fail_fwp_op = HCA_FWP_OP_INVALIDATE;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k)));
    EXPECT_EQ(0u, count(HCA_CTX_OP_DRAIN, CTX_CMD)) << "no DRAIN after a refused INVALIDATE";
}

// ---------------------------------------------------------------- REG_INDIR_MR

TEST_F(FwMm, RegIndirWritesTwoMttWordsPerEntryAndAKlmMpt)
{
    uint32_t k = mr(HCA_MKEY_KIND_INDIRECT, 4);
    const mkey_t before = shadow(k);
    EXPECT_EQ(8u, before.mtt_count);
    const hca_klm_entry_t klm[3] = {
        {0x1001, 7, 0x00000101}, {0xdeadbeef00ull, 0x10000, HCA_RESERVED_LKEY}, {0x3, 1, 0x00abcd02}};
    memcpy(&mock.host[0x2000], klm, sizeof klm);
    hca_fw_event_t e = ev(HCA_EVT_KIND_REG_INDIR_MR, pd, (k & ~0xffu) | 0xe1);
    e.params = params(0, LW | RW, 3);
    e.iova = 0x7000;
    e.length = 7 + 0x10000 + 1;
    e.list = HOST_BASE + 0x2000;
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
    ASSERT_EQ(10u, mock.log.size()) << "POP, read, 6 MTT words, MPT, DONE";
    EXPECT_EQ(48u, mock.log[1].len);
    for (unsigned i = 0; i < 3; i++) {
        EXPECT_EQ(before.mtt_base + 2 * i, mock.log[2 + 2 * i].index);
        EXPECT_EQ(klm[i].addr, mock.log[2 + 2 * i].mtt);
        EXPECT_EQ(before.mtt_base + 2 * i + 1, mock.log[3 + 2 * i].index);
        EXPECT_EQ(klm[i].length | (uint64_t)klm[i].lkey << 32, mock.log[3 + 2 * i].mtt);
    }
    hca_mpt_entry_t got;
    memcpy(&got, mock.log[8].mpt, sizeof got);
    EXPECT_EQ((unsigned)HCA_FWP_OP_WRITE_MPT, mock.log[8].op);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&got));
    EXPECT_EQ((unsigned)HCA_MKEY_KIND_INDIRECT, hca_mpt_entry_get_kind(&got));
    EXPECT_EQ((unsigned)HCA_MKEY_MODE_KLM, hca_mpt_entry_get_mode(&got));
    EXPECT_EQ(LW | RW, hca_mpt_entry_get_access(&got));
    EXPECT_EQ(e.key, got.key);
    EXPECT_EQ(pd, got.pd);
    EXPECT_EQ(0x7000u, got.iova);
    EXPECT_EQ(e.length, got.length);
    EXPECT_EQ(before.mtt_base, got.mtt_base);
    EXPECT_EQ(6u, got.mtt_count);
    EXPECT_EQ(0xe1u, shadow(k).key_byte);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k).state);
}

TEST_F(FwMm, RegIndirEachRuleFailingAloneLeavesTheMrUntouched)
{
    uint32_t k = mr(HCA_MKEY_KIND_INDIRECT, 3);
    uint32_t fr = mr(HCA_MKEY_KIND_FAST_REG, 3);
    uint32_t other = mr(HCA_MKEY_KIND_INDIRECT, 3, pd2);
    uint32_t valid = mr(HCA_MKEY_KIND_INDIRECT, 3);
    std::vector<hca_klm_entry_t> good_list = {{0x1000, 100, 0x101}, {0x2000, 200, 0x201}, {0x3000, 300, 0x301}};
    hca_fw_event_t good = ev(HCA_EVT_KIND_REG_INDIR_MR, pd, k);
    good.params = params(0, LW, 3);
    good.length = 600;
    auto put = [&](const std::vector<hca_klm_entry_t> &l) {
        if (!l.empty())
            memcpy(&mock.host[0x4000], l.data(), l.size() * sizeof l[0]);
        return HOST_BASE + 0x4000;
    };
    hca_fw_event_t v = good;
    v.key = valid;
    v.list = put(good_list);
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(v)) << mock.console;
    using L = std::vector<hca_klm_entry_t>;
    struct Case {
        const char *what, *rule;
        std::function<void(hca_fw_event_t &, L &)> mutate;
    };
    const Case cases[] = {
        {"MR named: another indirect MR", "the WR's key index differs from the MR's",
         [other](hca_fw_event_t &e, L &) { e.mr_key = other; }},
        {"key of another MR than the one named", "the WR's key index differs from the MR's",
         [k, fr](hca_fw_event_t &e, L &) {
             e.mr_key = k;
             e.key = fr;
         }},
        {"unallocated", "names no allocated MR", [](hca_fw_event_t &e, L &) { e.key = 0x00fff001; }},
        {"fast_reg MR", "not indirect", [fr](hca_fw_event_t &e, L &) { e.key = fr; }},
        {"VALID", "is VALID", [valid](hca_fw_event_t &e, L &) { e.key = valid; }},
        {"PD", "PD is not the QP's", [this](hca_fw_event_t &e, L &) { e.pd = pd2; }},
        {"MR of another PD", "PD is not the QP's", [other](hca_fw_event_t &e, L &) { e.key = other; }},
        {"list length 0", "list length", [](hca_fw_event_t &e, L &) { e.params = params(0, LW, 0); }},
        {"list length above max", "list length",
         [](hca_fw_event_t &e, L &l) {
             e.params = params(0, LW, 4);
             l.push_back({0x4000, 1, 0x401});
             e.length++;
         }},
        {"entry length 0", "length 0",
         [](hca_fw_event_t &, L &l) {
             l[1].length = 0;
             l[2].length += 200;
         }},
        {"sum one short", "add up", [](hca_fw_event_t &e, L &) { e.length++; }},
        {"sum one over", "add up", [](hca_fw_event_t &e, L &) { e.length--; }},
        {"access", "access flags", [](hca_fw_event_t &e, L &) { e.params = params(0, RW | RR, 3); }},
        {"list unreachable", "could not be read", [](hca_fw_event_t &e, L &) { e.list = 0x20; }},
    };
    const std::map<uint32_t, uint64_t> mtt_before = mock.mtt;
    const hca_mpt_entry_t mpt_before = mpt_of(k);
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        hca_fw_event_t e = good;
        L l = good_list;
        c.mutate(e, l);
        if (!e.list)
            e.list = put(l);
        mock.console.clear();
        EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(e));
        EXPECT_EQ(0u, table_writes());
        EXPECT_EQ(0u, mock.console.rfind("hcafw: REG_INDIR_MR key ", 0)) << mock.console;
        EXPECT_NE(std::string::npos, mock.console.find(c.rule)) << mock.console;
    }
    EXPECT_EQ(mtt_before, mock.mtt);
    EXPECT_EQ(0, memcmp(&mpt_before, &mock.mpt[k >> 8], sizeof mpt_before));
    hca_fw_event_t e = good;
    e.list = put(good_list);
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
}

// The WR names its MR (mr_key = sq_wqe.rkey) apart from the key it carries:
// only the indices are compared; mr_key 0 (no MR named) is the key's MR;
// invalidations ignore mr_key.
TEST_F(FwMm, ARegistrationRegistersTheMrItNamesOnlyWithAKeyOfThatIndex)
{
    const uint32_t f1 = mr(HCA_MKEY_KIND_FAST_REG, 2), f2 = mr(HCA_MKEY_KIND_FAST_REG, 2);
    const uint32_t i1 = mr(HCA_MKEY_KIND_INDIRECT, 2), i2 = mr(HCA_MKEY_KIND_INDIRECT, 2);
    const std::vector<uint64_t> pages = {0x1000, 0x2000};
    auto fast = [&](uint32_t mr_key, uint32_t key) {
        hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, key);
        e.mr_key = mr_key;
        e.params = params(12, LW, 2);
        e.length = 8192;
        e.list = put_pages(pages);
        return e;
    };
    const hca_klm_entry_t klm[1] = {{0x1000, 64, 0x101}};
    memcpy(&mock.host[0x5000], klm, sizeof klm);
    auto indir = [&](uint32_t mr_key, uint32_t key) {
        hca_fw_event_t e = ev(HCA_EVT_KIND_REG_INDIR_MR, pd, key);
        e.mr_key = mr_key;
        e.params = params(0, LW, 1);
        e.length = 64;
        e.list = HOST_BASE + 0x5000;
        return e;
    };
    auto key_on = [](uint32_t k, unsigned byte) { return (k & ~0xffu) | byte; };
    const std::map<uint32_t, uint64_t> mtt_before = mock.mtt;

    // Named f1, key of f2 (the scenario mm_frmr_err_key_index); and the converse.
    for (auto [named, key] : {std::pair{f1, key_on(f2, 42)}, std::pair{f2, key_on(f1, 42)}}) {
        SCOPED_TRACE("named key " + std::to_string(named) + ", WR key " + std::to_string(key));
        mock.console.clear();
        EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(fast(named, key)));
        EXPECT_EQ(0u, table_writes()) << "nothing written";
        EXPECT_NE(std::string::npos, mock.console.find("the WR's key index differs from the MR's")) << mock.console;
    }
    mock.console.clear();
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(indir(i1, key_on(i2, 9))));
    EXPECT_NE(std::string::npos, mock.console.find("the WR's key index differs from the MR's")) << mock.console;
    EXPECT_EQ(mtt_before, mock.mtt) << "a refused registration writes no MTT word";
    for (uint32_t k : {f1, f2, i1, i2}) {
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state) << "key 0x" << std::hex << k;
        EXPECT_EQ(k & 0xff, shadow(k).key_byte) << "key 0x" << std::hex << k;
    }

    // Same index, another key byte (update_fast_reg_key's new one): registers the MR named.
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(fast(f1, key_on(f1, 42)))) << mock.console;
    EXPECT_EQ(key_on(f1, 42), mpt_of(f1).key);
    EXPECT_EQ(42u, shadow(f1).key_byte);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(f1).state);
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(indir(key_on(i1, 3), key_on(i1, 9)))) << mock.console;
    EXPECT_EQ(key_on(i1, 9), mpt_of(i1).key);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(i1).state);
    // mr_key 0 names no MR: the MR of the key's index (a WQE written without it).
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(fast(0, key_on(f2, 7)))) << mock.console;
    EXPECT_EQ(key_on(f2, 7), mpt_of(f2).key);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(f2).state);

    // An invalidation names its MR by its key only: a stray mr_key changes nothing.
    hca_fw_event_t inv = ev(HCA_EVT_KIND_LOCAL_INV, pd, key_on(f1, 42));
    inv.mr_key = f2;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(inv)) << mock.console;
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(f1).state);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(f2).state) << "the MR mr_key named is untouched";
}

TEST_F(FwMm, RegIndirOfTheLongestListInChunks)
{
    const unsigned N = HCA_MAX_INDIR_REG_LIST_LEN;
    uint32_t k = mr(HCA_MKEY_KIND_INDIRECT, N);
    std::vector<hca_klm_entry_t> l(N);
    uint64_t sum = 0;
    for (unsigned i = 0; i < N; i++) {
        l[i] = {0x100000ull * i + i, i + 1, 0x100u * (i + 1) | 1};
        sum += i + 1;
    }
    memcpy(&mock.host[0x8000], l.data(), N * sizeof l[0]);
    hca_fw_event_t e = ev(HCA_EVT_KIND_REG_INDIR_MR, pd, k);
    e.params = params(0, LW, N);
    e.length = sum;
    e.list = HOST_BASE + 0x8000;
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(e)) << mock.console;
    size_t reads = 0;
    for (const Rec &r : mock.log)
        reads += r.kind == FDMA_READ;
    EXPECT_EQ(5u, reads) << "4096 bytes in 1000-byte transfers";
    const mkey_t s = shadow(k);
    for (unsigned i = 0; i < N; i++) {
        ASSERT_EQ(l[i].addr, mock.mtt[s.mtt_base + 2 * i]) << i;
        ASSERT_EQ(l[i].length | (uint64_t)l[i].lkey << 32, mock.mtt[s.mtt_base + 2 * i + 1]) << i;
    }
    EXPECT_EQ(2 * N, mpt_of(k).mtt_count);
}

} // namespace

// ---------------------------------------------------------------- inline page, batches, the sequencer

TEST_F(FwMm, AnInlinePageIsRegisteredWithoutReadingAList)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 4);
    mkey_t before = shadow(k);
    hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, (k & ~0xffu) | 0x21, 0x31);
    e.params = params(12, LW | RR, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    e.iova = 0x5000;
    e.length = 4096;
    e.list = 0x7654000; // the page itself
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(engine_ok(e))) << mock.console;
    EXPECT_EQ(0u, count(0, FDMA_READ)) << "no list is read";
    ASSERT_EQ(1u, count(HCA_FWP_OP_FAST_REG)) << "the fast path's one-shot commit";
    EXPECT_EQ(0u, count(HCA_FWP_OP_WRITE_MTT));
    EXPECT_EQ(0x7654000u | 1u, mock.mtt[before.mtt_base]) << "the inline page, present, at the MR's mtt_base";
    EXPECT_EQ(1u, mock.mpt[k >> 8].mtt_count);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k).state);
}

// The inline one-page FAST_REG_MR and the invalidations take mm.c's fast
// path; every rule failing alone must still be refused, by its own line,
// with nothing written (the slow path explains), and what the fast path
// commits is what the slow path commits for the same registration. The
// test is the send engine too: a rule on the MR's state fails with wqe_ok
// set (the fast path's own checks must refuse it), a rule that reads only
// the WQE with wqe_ok clear, as the engine would send it.
TEST_F(FwMm, FastRegInlineEachRuleFailingAloneLeavesTheMrUntouched)
{
    const FrMrs r = fr_mrs();
    const uint32_t k = r.k, valid = r.valid, free2 = r.free2;
    const uint32_t INL = 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    hca_fw_event_t good = ev(HCA_EVT_KIND_FAST_REG_MR, pd, (k & ~0xffu) | 0x77);
    good.mr_key = k;
    good.params = params(12, LW | RW, 1) | INL;
    good.iova = 0x10000ffe;
    good.length = 4096 - 0xffe; // exactly fills the page
    good.list = 0xfffff000;
    hca_fw_event_t v = good;
    v.key = v.mr_key = valid;
    ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(v)) << mock.console;
    struct Case {
        const char *what, *rule;
        std::function<void(hca_fw_event_t &)> mutate;
        bool mr_state = false; // a rule on the MR's state: the engine's wqe_ok is set
    };
    auto key_of = [](uint32_t key) { return [key](hca_fw_event_t &e) { e.key = e.mr_key = key; }; };
    auto mr_key_of = [](uint32_t key) { return [key](hca_fw_event_t &e) { e.mr_key = key; }; };
    const Case cases[] = {
        {"key of another FREE MR", "the WR's key index differs from the MR's",
         [free2](hca_fw_event_t &e) { e.key = (free2 & ~0xffu) | 0x77; }},
        {"MR named: another FREE MR", "the WR's key index differs from the MR's", mr_key_of(free2)},
        {"MR named: index 0, key byte 1", "the WR's key index differs from the MR's", mr_key_of(HCA_RESERVED_LKEY)},
        {"index 0", "names no allocated MR", key_of(0x77), true},
        {"unallocated index", "names no allocated MR", key_of(0xabc00 | 0x77), true},
        {"index beyond the table", "names no allocated MR", key_of(0xffff00 | 0x77), true},
        {"regular MR", "not fast_reg", key_of(r.regular), true},
        {"indirect MR", "not fast_reg", key_of(r.indirect), true},
        {"dma MR", "not fast_reg", key_of(r.dma), true},
        {"VALID MR", "is VALID", key_of(valid), true},
        {"PD", "PD is not the QP's", [](hca_fw_event_t &e) { e.pd++; }, true},
        {"MR of another PD", "PD is not the QP's", key_of(r.other_pd), true},
        {"page_list_len 0", "page_list_len is 0", [INL](hca_fw_event_t &e) { e.params = params(12, LW, 0) | INL; }},
        {"page_list_len 2", "inline page list holds one page",
         [INL](hca_fw_event_t &e) { e.params = params(12, LW, 2) | INL; }},
        {"page_shift 11", "page_shift", [INL](hca_fw_event_t &e) { e.params = params(11, LW | RW, 1) | INL; }},
        {"page_shift 31", "page_shift", [INL](hca_fw_event_t &e) { e.params = params(31, LW | RW, 1) | INL; }},
        {"page unaligned", "not aligned", [](hca_fw_event_t &e) { e.list |= 0x800; }},
        {"page unaligned to a 2 MiB page", "not aligned", [INL](hca_fw_event_t &e) {
             e.params = params(21, LW, 1) | INL;
             e.list = 0x40001000;
         }},
        {"one byte past the page", "page_list_len << page_shift", [](hca_fw_event_t &e) { e.length++; }},
        {"first byte offset past the page", "page_list_len << page_shift", [](hca_fw_event_t &e) { e.iova++; }},
        {"length 2^32", "page_list_len << page_shift", [](hca_fw_event_t &e) { e.length = 1ull << 32; }},
        {"length 0", "length is 0", [](hca_fw_event_t &e) { e.length = 0; }},
        {"iova + length reaches 2^64", "wraps", [](hca_fw_event_t &e) {
             e.iova = ~0ull - 0x7ff;
             e.length = 0x800;
         }},
        {"remote write without local write", "access flags",
         [INL](hca_fw_event_t &e) { e.params = params(12, RW, 1) | INL; }},
        {"remote atomic without local write", "access flags",
         [INL](hca_fw_event_t &e) { e.params = params(12, HCA_ACCESS_REMOTE_ATOMIC, 1) | INL; }},
    };
    const hca_mpt_entry_t mpt_before = mpt_of(k);
    const std::map<uint32_t, uint64_t> mtt_before = mock.mtt;
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        hca_fw_event_t e = good;
        c.mutate(e);
        expect_fr_refused(c.mr_state ? engine_ok(e) : e, c.rule);
        EXPECT_EQ(0u, count(0, FDMA_READ)) << "no list read";
    }
    expect_fr_untouched(r, mpt_before, mtt_before);

    // Accepted at the limits: the page exactly filled; the largest page; a
    // page in the last 4 GiB of the address space that ends one byte short
    // of 2^64; one whose end carries out of iova's low word below the top 4
    // GiB. Each is then registered again through the slow path (the
    // same page as a one-entry list), and both wrote the same MTT word and
    // MPT entry.
    hca_fw_event_t big = good;
    big.key = big.mr_key = mr(HCA_MKEY_KIND_FAST_REG, 1);
    big.params = params(30, LW | RR, 1) | INL;
    big.iova = 0;
    big.length = 1ull << 30;
    big.list = 0x1c0000000ull;
    hca_fw_event_t top = good;
    top.iova = ~0ull - 0xfff;
    top.length = 0xfff;
    hca_fw_event_t carry = good; // the page's end carries out of iova's low word: no wrap below the top 4 GiB
    carry.iova = 0x1fffff800ull;
    carry.length = 0x800;
    for (const hca_fw_event_t *a : {&good, &big, &top, &carry}) {
        SCOPED_TRACE(a == &good  ? "page filled"
                     : a == &big ? "1 GiB page"
                     : a == &top ? "top of the address space"
                                 : "a carry out of the low word");
        const uint32_t key = a->key;
        const uint32_t base = shadow(key).mtt_base;
        mock.console.clear();
        ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(engine_ok(*a))) << mock.console;
        EXPECT_EQ(1u, count(HCA_FWP_OP_FAST_REG)) << "the fast path's one-shot commit";
        EXPECT_EQ(0u, count(HCA_FWP_OP_WRITE_MTT) + count(HCA_FWP_OP_WRITE_MPT));
        const hca_mpt_entry_t fast = mpt_of(key);
        const uint64_t fast_mtt = mock.mtt[base];
        EXPECT_EQ(a->list | 1u, fast_mtt);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(key).state);
        EXPECT_EQ(key & 0xff, shadow(key).key_byte);
        ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, key)));
        mock.mtt.erase(base);
        hca_fw_event_t slow = *a;
        slow.params &= ~INL;
        slow.list = put_pages({a->list});
        ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(slow)) << mock.console;
        EXPECT_EQ(1u, count(0, FDMA_READ)) << "the slow path read the list";
        EXPECT_EQ(0, memcmp(&fast, &mock.mpt[key >> 8], sizeof fast)) << "the same MPT entry";
        EXPECT_EQ(fast_mtt, mock.mtt[base]) << "the same MTT word";
        ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, key)));
    }
}

TEST_F(FwMm, AnInlineListOfOtherThanOnePageOrAnInlineKlmListIsRefused)
{
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 4);
    hca_fw_event_t e = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k);
    e.params = params(12, LW, 2) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    e.length = 8192;
    e.list = 0x1000;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(e));
    EXPECT_NE(std::string::npos, mock.console.find("inline page list holds one page")) << mock.console;
    EXPECT_EQ(0u, table_writes());
    EXPECT_EQ(0u, count(0, FDMA_READ));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state);

    uint32_t ki = mr(HCA_MKEY_KIND_INDIRECT, 4);
    hca_fw_event_t x = ev(HCA_EVT_KIND_REG_INDIR_MR, pd, ki);
    x.params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    x.length = 64;
    EXPECT_EQ((unsigned)HCA_WC_STATUS_MW_BIND_ERR, serve(x));
    EXPECT_NE(std::string::npos, mock.console.find("KLM list is never inline")) << mock.console;
    EXPECT_EQ(0u, table_writes());
}

// The DONEs mm_service wrote, in order (tag << 8 | status).
static std::vector<uint32_t> dones(const Mock &m)
{
    std::vector<uint32_t> d;
    for (const Rec &r : m.log)
        if (r.kind == EVT_DONE)
            d.push_back(r.index);
    return d;
}

TEST_F(FwMm, ABatchIsReadByOneProgramAndItsRegistrationsAndItsInvalidationsAreARunEach)
{
    uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_FAST_REG, 2);
    hca_fw_event_t ra = ev(HCA_EVT_KIND_FAST_REG_MR, pd, a, 1), rb = ev(HCA_EVT_KIND_FAST_REG_MR, pd, b, 2);
    for (hca_fw_event_t *e : {&ra, &rb}) {
        e->params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
        e->length = 100;
        e->list = 0x3000;
    }
    queue(engine_ok(ra));
    queue(engine_ok(rb));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 3));
    mm_service();
    EXPECT_TRUE(mock.events.empty());
    EXPECT_EQ(4, mock.fseq_runs)
        << "one read of the batch, the registrations' run, the invalidation's run, a read finding none";
    EXPECT_EQ(3 * HCA_EVT_INV_WORDS + 2, mock.evt_words_read)
        << "READ_EVT: a wqe_ok registration's and an invalidation's words up to key (fwp's bank keeps the "
           "registration); each read stopped at the empty queue's first word";
    std::vector<Kind> kinds;
    for (const Rec &r : mock.log)
        kinds.push_back(r.kind);
    ASSERT_EQ(11u, kinds.size());
    EXPECT_EQ((std::vector<Kind>{EVT_POP, EVT_POP, EVT_POP, FWP_CMD, FWP_CMD, CTX_CMD, EVT_DONE, EVT_DONE, FWP_CMD,
                                 CTX_CMD, EVT_DONE}),
              kinds)
        << "the batch popped first; each run's commands before its DONEs";
    EXPECT_EQ(2u, count(HCA_FWP_OP_FAST_REG)) << "each registration one FAST_REG";
    EXPECT_EQ((unsigned)HCA_FWP_OP_FAST_REG, mock.log[3].op);
    EXPECT_EQ(1u, mock.log[3].index) << "the second event's bank slot (a run runs its last event's command first)";
    EXPECT_EQ(0u, mock.log[4].index) << "the first event's bank slot";
    EXPECT_EQ((unsigned)HCA_CTX_OP_NOP, mock.log[5].op) << "a registrations' run drains nothing";
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_SUCCESS,
                                     3u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock))
        << "every DONE in event order";
    EXPECT_EQ((unsigned)HCA_CTX_OP_DRAIN, mock.log[9].op) << "the invalidation's DRAIN";
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(a).state) << "registered, then invalidated";
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(b).state);
}

TEST_F(FwMm, ARunStoppedAtAFastRegFailsExactlyTheRegistrationsNotCommitted)
{
    // Three registrations in one run: the FAST_REGs run c, b, a; b's is
    // refused, so c is committed (SUCCESS, VALID with its key), b fails as its
    // own program would (MW_BIND_ERR), a never ran (MW_BIND_ERR); a and b stay
    // FREE with their old keys and register again.
    uint32_t m[3], k[3];
    std::vector<hca_fw_event_t> regs;
    for (unsigned i = 0; i < 3; i++) {
        m[i] = mr(HCA_MKEY_KIND_FAST_REG, 2);
        k[i] = (m[i] & ~0xffu) | (0x60 + i);
        hca_fw_event_t r = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k[i], 1 + i);
        r.params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
        r.length = 10;
        r.list = 0x9000;
        regs.push_back(engine_ok(r));
    }
    // the three in one batch; the DONEs written since the log was cleared
    auto serve_batch = [&]() {
        for (const hca_fw_event_t &r : regs)
            queue(r);
        mm_service();
        return dones(mock);
    };
    mock.fail_fwp_op = HCA_FWP_OP_FAST_REG;
    mock.fail_fwp_skip = 1;
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_MW_BIND_ERR, 2u << 8 | HCA_WC_STATUS_MW_BIND_ERR,
                                     3u << 8 | HCA_WC_STATUS_SUCCESS}),
              serve_batch());
    EXPECT_EQ(2u, count(HCA_FWP_OP_FAST_REG)) << "c's, then b's refused; a's never";
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k[0]).state);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k[1]).state);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k[2]).state);
    EXPECT_EQ(k[2] & 0xffu, shadow(k[2]).key_byte) << "the committed one's key";
    EXPECT_EQ(m[1] & 0xffu, shadow(k[1]).key_byte) << "the refused one's key as it was";
    EXPECT_NE(std::string::npos, mock.console.find("refused FAST_REG")) << mock.console;
    EXPECT_NE(std::string::npos, mock.console.find("stopped before its FAST_REG")) << mock.console;
    EXPECT_EQ(2, std::count(mock.console.begin(), mock.console.end(), '\n')) << "one line per refusal: " << mock.console;
    // a and b register again; c, VALID, is refused (invalidate first).
    mock.log.clear();
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_SUCCESS,
                                     3u << 8 | HCA_WC_STATUS_MW_BIND_ERR}),
              serve_batch());
}


TEST_F(FwMm, ARunOfInvalidationsIsOneProgramWithOneDrainAndItsDonesInEventOrder)
{
    uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_INDIRECT, 2), c = mr(HCA_MKEY_KIND_FAST_REG, 2);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 1));
    queue(ev(HCA_EVT_KIND_REMOTE_INV, pd, b, 2));
    queue(ev(HCA_EVT_KIND_READ_INV, pd, c, 3));
    mm_service();
    EXPECT_TRUE(mock.events.empty());
    EXPECT_EQ(3, mock.fseq_runs) << "the batch read, the run, a read finding none";
    std::vector<Kind> kinds;
    std::vector<uint32_t> inv;
    for (const Rec &r : mock.log) {
        kinds.push_back(r.kind);
        if (r.kind == FWP_CMD && r.op == HCA_FWP_OP_INVALIDATE)
            inv.push_back(r.index);
    }
    EXPECT_EQ((std::vector<Kind>{EVT_POP, EVT_POP, EVT_POP, FWP_CMD, FWP_CMD, FWP_CMD, CTX_CMD, EVT_DONE, EVT_DONE,
                                 EVT_DONE}),
              kinds)
        << "every INVALIDATE, then one DRAIN, then the DONEs";
    EXPECT_EQ((std::vector<uint32_t>{c >> 8, b >> 8, a >> 8}), inv) << "the template's order: last event first";
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_SUCCESS,
                                     3u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
    for (uint32_t k : {a, b, c})
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state);
}

// hdr.inv_ok is the MPT's verdict as the batch read found it: an earlier
// event of the same batch on the same MR can make it stale, so the
// sequencer clears it for every READ_EVT of an index the program read before
// (hca_fseq_evt_key) and the firmware decides those by the rules on its
// shadow, which the earlier event already changed.
TEST_F(FwMm, AFastRegThenALocalInvOfTheOldKeyInOneBatchRefusesTheLocalInv)
{
    const uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    const uint32_t k2 = (k & ~0xffu) | ((k + 1) & 0xffu); // the registration's new key byte
    hca_fw_event_t r = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k2, 1);
    r.params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    r.length = 100;
    r.list = 0x3000;
    queue(engine_ok(r));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k, 2)); // the MPT still has k at the batch read: the device says OK
    mm_service();
    EXPECT_TRUE(mock.events.empty());
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_MW_BIND_ERR}),
              dones(mock));
    EXPECT_EQ(0u, count(HCA_FWP_OP_INVALIDATE)) << "the stale verdict was not trusted";
    EXPECT_NE(std::string::npos, mock.console.find("not the MR's current key")) << mock.console;
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k2).state);
    EXPECT_EQ(k2, mpt_of(k2).key);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&mock.mpt[k2 >> 8])) << "registered";
    // The new key in the same batch: the device says no (the MPT has k), the rules say yes.
    mock.log.clear();
    r.key = (k & ~0xffu) | ((k + 2) & 0xffu);
    const uint32_t k3 = r.key;
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k2, 3));
    queue(engine_ok(r));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k3, 4));
    mm_service();
    EXPECT_EQ((std::vector<uint32_t>{3u << 8 | HCA_WC_STATUS_SUCCESS, 1u << 8 | HCA_WC_STATUS_SUCCESS,
                                     4u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
    EXPECT_EQ(2u, count(HCA_FWP_OP_INVALIDATE));
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k3).state);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, hca_mpt_entry_get_state(&mock.mpt[k3 >> 8]));
    EXPECT_EQ(k3, mpt_of(k3).key);
}

TEST_F(FwMm, TwoLocalInvsOfOneMrInOneBatchBothSucceedInOneRun)
{
    const uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_FAST_REG, 2);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 1));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, b, 2));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 3)); // a again: its verdict cleared, the rules decide
    mm_service();
    EXPECT_EQ(3, mock.fseq_runs) << "the batch read, one run, a read finding none";
    EXPECT_EQ(3u, count(HCA_FWP_OP_INVALIDATE));
    EXPECT_EQ(1u, count(HCA_CTX_OP_DRAIN, CTX_CMD));
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_SUCCESS,
                                     3u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
    for (uint32_t k : {a, b})
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k).state);
    // The same with the verdicts off (the rules alone): the same commands and answers.
    const std::vector<Rec> with = mock.log;
    mock.log.clear();
    mock.verdicts = false;
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 1));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, b, 2));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 3));
    mm_service();
    ASSERT_EQ(with.size(), mock.log.size());
    for (size_t i = 0; i < with.size(); i++) {
        EXPECT_EQ(with[i].kind, mock.log[i].kind) << i;
        EXPECT_EQ(with[i].op, mock.log[i].op) << i;
        EXPECT_EQ(with[i].index, mock.log[i].index) << i;
    }
}

TEST_F(FwMm, AnInvalidationTheDeviceFoundGoodAfterARefusedOneSucceeds)
{
    const uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_INDIRECT, 2);
    const uint32_t reg = mr(HCA_MKEY_KIND_REGULAR, 1);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a ^ 0x80, 1));  // another key byte
    queue(ev(HCA_EVT_KIND_REMOTE_INV, pd2, b, 2));       // another PD
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, reg, 3));       // a regular MR
    queue(ev(HCA_EVT_KIND_READ_INV, pd, b, 4));          // b: its index read before, the rules decide
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 5));         // a: likewise
    mm_service();
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_MW_BIND_ERR, 2u << 8 | HCA_WC_STATUS_REM_INV_REQ_ERR,
                                     3u << 8 | HCA_WC_STATUS_MW_BIND_ERR, 4u << 8 | HCA_WC_STATUS_SUCCESS,
                                     5u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
    EXPECT_EQ(2u, count(HCA_FWP_OP_INVALIDATE));
    EXPECT_EQ((std::vector<uint32_t>{a >> 8, b >> 8}),
              [&] {
                  std::vector<uint32_t> v;
                  for (const Rec &r : mock.log)
                      if (r.kind == FWP_CMD && r.op == HCA_FWP_OP_INVALIDATE)
                          v.push_back(r.index);
                  return v;
              }())
        << "one run of the last two (last event first)";
    // A fresh batch: the first event on each MR, the device's verdict trusted.
    mock.log.clear();
    mr(HCA_MKEY_KIND_FAST_REG, 2);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, reg, 6));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 7));
    mm_service();
    EXPECT_EQ((std::vector<uint32_t>{6u << 8 | HCA_WC_STATUS_MW_BIND_ERR, 7u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
}

TEST_F(FwMm, ARuleFailingInARunEndsItAndTheRestIsANewRun)
{
    uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_FAST_REG, 2), c = mr(HCA_MKEY_KIND_FAST_REG, 2);
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, a, 1));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, b ^ 0x80, 2)); // another key byte
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, c, 3));
    mm_service();
    EXPECT_EQ(4, mock.fseq_runs) << "the batch read, a's run, c's run, a read finding none";
    EXPECT_EQ(2u, count(HCA_FWP_OP_INVALIDATE));
    EXPECT_EQ(2u, count(HCA_CTX_OP_DRAIN, CTX_CMD));
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_SUCCESS, 2u << 8 | HCA_WC_STATUS_MW_BIND_ERR,
                                     3u << 8 | HCA_WC_STATUS_SUCCESS}),
              dones(mock));
    EXPECT_NE(std::string::npos, mock.console.find("not the MR's current key")) << mock.console;
}

TEST_F(FwMm, ARunStoppedAtAnInvalidateFailsExactlyTheEventsNotCommitted)
{
    // Taken on the device's verdicts (an uncommitted one's state read back from
    // its MPT entry) and on the rules alone (its saved shadow word): alike.
    for (bool verdicts : {true, false}) {
        SCOPED_TRACE(verdicts ? "hdr.inv_ok set" : "the rules alone");
        mock.verdicts = verdicts;
        // Three MRs registered (VALID), then invalidated in one run: the
        // INVALIDATEs run c, b, a; b's is refused, so c's is committed (DRAINed,
        // then SUCCESS), b fails as its own program would (REMOTE_INV:
        // REM_INV_REQ_ERR), a never ran (MW_BIND_ERR); a and b keep VALID.
        uint32_t k[3];
        for (unsigned i = 0; i < 3; i++) {
            uint32_t m = mr(HCA_MKEY_KIND_FAST_REG, 2);
            k[i] = (m & ~0xffu) | (0x50 + i);
            hca_fw_event_t reg = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k[i], 9);
            reg.params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
            reg.length = 10;
            reg.list = 0x9000;
            ASSERT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(engine_ok(reg))) << mock.console;
        }
        mock.log.clear();
        mock.console.clear();
        mock.fail_fwp_op = HCA_FWP_OP_INVALIDATE;
        mock.fail_fwp_skip = 1;
        queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k[0], 1));
        queue(ev(HCA_EVT_KIND_REMOTE_INV, pd, k[1], 2));
        queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k[2], 3));
        mm_service();
        EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_MW_BIND_ERR, 2u << 8 | HCA_WC_STATUS_REM_INV_REQ_ERR,
                                         3u << 8 | HCA_WC_STATUS_SUCCESS}),
                  dones(mock));
        EXPECT_EQ(2u, count(HCA_FWP_OP_INVALIDATE)) << "c's, then b's refused; a's never";
        ASSERT_EQ(1u, count(HCA_CTX_OP_DRAIN, CTX_CMD)) << "the committed one's DRAIN, before its DONE";
        size_t drain_at = 0, c_done_at = 0;
        for (size_t i = 0; i < mock.log.size(); i++) {
            if (mock.log[i].kind == CTX_CMD)
                drain_at = i;
            if (mock.log[i].kind == EVT_DONE && mock.log[i].index >> 8 == 3)
                c_done_at = i;
        }
        EXPECT_LT(drain_at, c_done_at);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k[0]).state);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, shadow(k[1]).state);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(k[2]).state);
        EXPECT_EQ((unsigned)HCA_MKEY_STATE_VALID, hca_mpt_entry_get_state(&mock.mpt[k[1] >> 8]));
        EXPECT_NE(std::string::npos, mock.console.find("refused INVALIDATE")) << mock.console;
        EXPECT_NE(std::string::npos, mock.console.find("stopped before its INVALIDATE")) << mock.console;
        EXPECT_EQ(2, std::count(mock.console.begin(), mock.console.end(), '\n')) << "one line per refusal: " << mock.console;
        // Every MR answers as its state says: a and b invalidate again, c too (FREE).
        for (unsigned i = 0; i < 3; i++)
            EXPECT_EQ((unsigned)HCA_WC_STATUS_SUCCESS, serve(ev(HCA_EVT_KIND_LOCAL_INV, pd, k[i])));
    }
}

TEST_F(FwMm, ARunWhoseDrainIsStuckFailsEveryEventWithItsKindsStatus)
{
    uint32_t a = mr(HCA_MKEY_KIND_FAST_REG, 2), b = mr(HCA_MKEY_KIND_FAST_REG, 2);
    mock.drain = Drain::STUCK;
    queue(ev(HCA_EVT_KIND_REMOTE_INV, pd, a, 1));
    queue(ev(HCA_EVT_KIND_READ_INV, pd, b, 2));
    mm_service();
    EXPECT_EQ((std::vector<uint32_t>{1u << 8 | HCA_WC_STATUS_REM_INV_REQ_ERR, 2u << 8 | HCA_WC_STATUS_MW_BIND_ERR}),
              dones(mock));
    EXPECT_EQ(2, std::count(mock.console.begin(), mock.console.end(), '\n')) << mock.console;
    EXPECT_NE(std::string::npos, mock.console.find("DRAIN did not complete")) << mock.console;
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, shadow(a).state) << "INVALIDATE ran: the entry is FREE";
}

TEST_F(FwMm, AStoppedCommitIsSettledBeforeTheNextEventOnItsMrIsDecided)
{
    // The registration's FAST_REG is refused while the program runs; the
    // LOCAL_INV behind it in the same batch names the key that registration
    // would have given: the MR kept its old key, so it is refused.
    uint32_t k = mr(HCA_MKEY_KIND_FAST_REG, 2);
    uint32_t k1 = (k & ~0xffu) | 0x77;
    hca_fw_event_t reg = ev(HCA_EVT_KIND_FAST_REG_MR, pd, k1, 4);
    reg.params = params(12, LW, 1) | 1u << HCA_SQ_WQE_FR_INLINE_LSB;
    reg.length = 10;
    reg.list = 0x9000;
    mock.fail_fwp_op = HCA_FWP_OP_FAST_REG;
    queue(engine_ok(reg));
    queue(ev(HCA_EVT_KIND_LOCAL_INV, pd, k1, 5));
    mm_service();
    std::vector<uint32_t> done;
    for (const Rec &r : mock.log)
        if (r.kind == EVT_DONE)
            done.push_back(r.index);
    ASSERT_EQ(2u, done.size());
    EXPECT_EQ(4u << 8 | HCA_WC_STATUS_MW_BIND_ERR, done[0]) << "the registration, answered by settle()";
    EXPECT_EQ(5u << 8 | HCA_WC_STATUS_MW_BIND_ERR, done[1]) << "decided on the MR as the refusal left it";
    EXPECT_NE(std::string::npos, mock.console.find("refused FAST_REG")) << mock.console;
    EXPECT_NE(std::string::npos, mock.console.find("not the MR's current key")) << mock.console;
    EXPECT_EQ(0u, count(HCA_FWP_OP_INVALIDATE));
    mkey_t m = shadow(k);
    EXPECT_EQ((unsigned)HCA_MKEY_STATE_FREE, m.state);
    EXPECT_EQ(k & 0xffu, m.key_byte) << "the old key byte back";
}
