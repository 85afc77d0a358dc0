/* core_rtl.cpp — the Verilated device core (rtl/hca_core.sv) behind
 * core_engine_ops_t (sim/iface/core_engine.h), as sim/verilated/xu_rtl.cpp does for the
 * translation unit.
 *
 * One engine = one VerilatedContext + one model: hca_core inside
 * sim/verilated/hca_core_sim.sv, which registers its inputs, so that one
 * evaluation per cycle settles it. Per cycle: the inputs are driven and the
 * edge that ended the last evaluated cycle is taken (it registers them as
 * it clocks the core: each edge is taken one call late, when the next
 * cycle's inputs are known), the outputs of this cycle are read back. The
 * core then sees this cycle's inputs and the registers after the last
 * edge, as a top-level hca_core did at its clock-low evaluation, which was
 * followed by an edge evaluating the input-dependent logic again from the
 * old inputs. A wave is written the same way, one evaluation a cycle
 * ("One traced evaluation per cycle" in docs/engine.md): call N takes edge
 * N-1 with cycle N's inputs, dumps that state at edge N-1's instant (clock
 * high), then lowers the clock and dumps again at N's clock-low instant
 * without evaluating (Verilator then compares only the top's ports). So at
 * every clock-low instant each signal has the value a clock-low
 * evaluation gives, registers change at their posedge, and the inputs (and
 * what they reach) change at the posedge that precedes them, as a
 * synchronous testbench drives them. The last traced cycle's edge is taken
 * at once when the dump pauses or ends (flush_edge), and the next cycle's
 * inputs are then loaded alone (ld_i). Struct pins (dma_req,
 * dma_rsp, tx, rx) are the ABI structs' bytes in address order, which is
 * also how Verilator lays out a wide port (VlWide: 32-bit words, word 0 =
 * bits 31:0 = bytes 0..3 on a little-endian host), so they are copied as
 * they are. Waves (FST) put cycle `now` at time now ns.
 *
 * Time is an input (now_i, the cycle's low 32 bits), so a quiet core's state
 * stands still: with each cycle's outputs the core says whether it is quiet
 * (quiet_o, from its registers) and until when (wake_o, an RNR deadline). The harness
 * skips the cycles between (quiet_until), except while a wave is written;
 * a quiet cycle it does step, with the inputs of the last one, is not
 * evaluated (quiet_cycle: the waves get the same dumps as from stepping).
 * With the edge taken late, what is known after a cycle is whether the
 * state before its edge was quiet: with its inputs idle, that edge changes
 * nothing either, and the quiet stretch starts at the next cycle.
 * HCASIM_RTL_SKIP=0 evaluates every cycle (to check that skipping changes
 * nothing); =check evaluates every quiet cycle too, skipped ones with the
 * inputs held idle, and aborts at the first output that moves or when the
 * whole state differs after a quiet stretch (the proof that quiet_o is
 * right).
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>
#include <new>

#include "Vhca_core.h"
#include "core_engine.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#include "vl_engine.h"

#include "Vhca_core__Syms.h"
#include "Vhca_core___024root.h"
VL_DEFINE_EDGE(Vhca_core)

namespace {

using namespace vl_engine;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "VlWide words are copied as host bytes");

enum SkipMode { kSkipOff, kSkipOn, kSkipCheck };

struct SkipState {
    SkipMode mode = kSkipOn;
    bool pending = false;  /* the edge of the last evaluated cycle is not taken yet */
    bool edged = false;    /* a clock edge was taken since reset */
    uint64_t quiet_to = 0; /* after the last evaluated cycle: quiet before this cycle */
    core_pins_t last = {}; /* the pins of the last evaluated cycle */
    bool quiet = false;    /* ... and the core's quiet_o, wake_valid_o, wake_o in it */
    bool wake_valid = false;
    uint32_t wake = 0;
    bool owed = false;     /* a wave's dump at owed_cycle's edge is still to write */
    uint64_t owed_cycle = 0;
    std::vector<unsigned char> snap; /* check mode: the model's state before quiet cycles */
    bool snap_valid = false;         /* ... taken, first quiet cycle snap_from */
    uint64_t snap_from = 0;
};

using CoreRtl = VlEngine<Vhca_core, SkipState>;

/* A struct into a wide input port, and a wide output port into a struct. */
template <typename W, typename S> void to_port(W &port, const S &s)
{
    static_assert(sizeof(port) == sizeof(s), "port and struct sizes differ");
    std::memcpy(&port, &s, sizeof(s));
}

template <typename S, typename W> void from_port(S &s, const W &port)
{
    static_assert(sizeof(port) == sizeof(s), "port and struct sizes differ");
    std::memcpy(&s, &port, sizeof(s));
}

void idle_inputs(Vhca_core &t)
{
    static const hca_dma_rsp_t zrsp = {};
    static const hca_pkt_t zpkt = {};
    t.clk_i = 0;
    t.ld_i = 0;
    t.db_valid_i = 0;
    t.db_addr_i = 0;
    t.db_data_i = 0;
    t.fw_valid_i = 0;
    t.fw_write_i = 0;
    t.fw_addr_i = 0;
    t.fw_wdata_i = 0;
    t.dma_req_ready_i = 0;
    t.dma_rsp_valid_i = 0;
    to_port(t.dma_rsp_i, zrsp);
    t.tx_ready_i = 0;
    t.rx_valid_i = 0;
    to_port(t.rx_i, zpkt);
    t.xq_valid_i = 0;
    t.xq_tag_i = 0;
    t.xq_rights_i = 0;
    t.xq_remote_i = 0;
    t.xq_key_i = 0;
    t.xq_pd_i = 0;
    t.xq_len_i = 0;
    t.xq_va_i = 0;
    t.xs_ready_i = 0;
}

void flush_edge(CoreRtl *x);

void rtl_reset(void *eng)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    flush_edge(x); /* the last traced cycle's edge dump, before reset moves the model */
    reset(*x->top, idle_inputs);
    x->pending = false;
    x->edged = false;
    x->quiet_to = 0;
    x->quiet = false;
    x->last = core_pins_t{};
}

int rtl_create(void **eng, const xu_params_t *params)
{
    const int rc = create<Vhca_core, CoreRtl>(eng, params, "hca_core", rtl_reset);
    if (rc == 0) {
        const char *e = std::getenv("HCASIM_RTL_SKIP");
        CoreRtl *x = static_cast<CoreRtl *>(*eng);
        x->mode = !e || !*e ? kSkipOn : !std::strcmp(e, "0") ? kSkipOff : !std::strcmp(e, "check") ? kSkipCheck : kSkipOn;
    }
    return rc;
}

void rtl_trace_close(void *eng)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    flush_edge(x);
    trace_close(*x);
}

void rtl_destroy(void *eng)
{
    if (eng)
        flush_edge(static_cast<CoreRtl *>(eng));
    destroy<Vhca_core, CoreRtl>(eng);
}

/* Drive the inputs (the wrapper's, registered at the next edge), masked to
 * their port widths. */
void drive(Vhca_core &t, const core_pins_t *p, uint64_t now)
{
    t.now_i = (uint32_t)now;
    t.db_valid_i = p->db_valid & 1u;
    t.db_addr_i = p->db_addr & 0xfu;
    t.db_data_i = p->db_data;
    t.fw_valid_i = p->fw_valid & 1u;
    t.fw_write_i = p->fw_write & 1u;
    t.fw_addr_i = p->fw_addr;
    t.fw_wdata_i = p->fw_wdata;
    t.dma_req_ready_i = p->dma_req_ready & 1u;
    t.dma_rsp_valid_i = p->dma_rsp_valid & 1u;
    to_port(t.dma_rsp_i, p->dma_rsp);
    t.tx_ready_i = p->tx_ready & 1u;
    t.rx_valid_i = p->rx_valid & 1u;
    to_port(t.rx_i, p->rx);
    t.xq_valid_i = p->xq_valid & 1u;
    t.xq_tag_i = p->xq_tag;
    t.xq_rights_i = p->xq_rights & 0xfu;
    t.xq_remote_i = p->xq_remote & 1u;
    t.xq_key_i = p->xq_key;
    t.xq_pd_i = p->xq_pd & ((1u << HCA_PD_BITS) - 1u);
    t.xq_len_i = p->xq_len;
    t.xq_va_i = p->xq_va;
    t.xs_ready_i = p->xs_ready & 1u;
}

/* The input pins of a and b are the same (what drive() reads). */
bool same_inputs(const core_pins_t &a, const core_pins_t &b)
{
    return a.db_valid == b.db_valid && a.db_addr == b.db_addr && a.db_data == b.db_data &&
           a.fw_valid == b.fw_valid && a.fw_write == b.fw_write && a.fw_addr == b.fw_addr &&
           a.fw_wdata == b.fw_wdata && a.dma_req_ready == b.dma_req_ready && a.dma_rsp_valid == b.dma_rsp_valid &&
           !std::memcmp(&a.dma_rsp, &b.dma_rsp, sizeof a.dma_rsp) && a.tx_ready == b.tx_ready &&
           a.rx_valid == b.rx_valid && !std::memcmp(&a.rx, &b.rx, sizeof a.rx) && a.xq_valid == b.xq_valid &&
           a.xq_tag == b.xq_tag && a.xq_rights == b.xq_rights && a.xq_remote == b.xq_remote &&
           a.xq_key == b.xq_key && a.xq_pd == b.xq_pd && a.xq_len == b.xq_len && a.xq_va == b.xq_va &&
           a.xs_ready == b.xs_ready;
}

bool inputs_idle(const core_pins_t &p)
{
    return !p.db_valid && !p.fw_valid && !p.dma_rsp_valid && !p.rx_valid && !p.xq_valid;
}

/* A rising edge of the wrapper: clk_i (the core's edge, the inputs
 * registered) or ld_i (the inputs registered alone), evaluated at once (the
 * edge set up as rising whatever the pin held: the clock is lowered without
 * an evaluation, nothing is sensitive to its falling edge). */
void pulse(Vhca_core &t, bool core_edge)
{
    Vhca_core___024root &r = *t.rootp;
    if (core_edge) {
        t.clk_i = 1;
        r.__Vtrigrprev__TOP__clk_i = 0;
    } else {
        t.ld_i = 1;
        r.__Vtrigrprev__TOP__ld_i = 0;
    }
    settle(t);
    t.ld_i = 0;
    r.__Vtrigrprev__TOP__ld_i = 0;
}

/* The edge left pending by the last evaluated cycle, if any, with the
 * inputs it registers (cycle now's when called for cycle now); the clock
 * lowered after it (nothing is sensitive to its falling edge). */
void take_pending(CoreRtl *x)
{
    if (x->pending) {
        pulse(*x->top, true);
        x->top->clk_i = 0;
        x->pending = false;
        x->edged = true;
    }
}

/* A wave's dump of what the model holds now, with the clock at clk: no
 * evaluation (after one, Verilator compares what it marked; otherwise only
 * the top's ports, the clock among them). */
void dump_at(CoreRtl *x, uint64_t time, bool clk)
{
    x->top->clk_i = clk;
    x->top->rootp->vlSymsp->__Vm_activity = true;
    x->fst->dump(time);
    x->top->clk_i = 0;
}

/* The clock-low dump of cycle now; its edge's dump is then owed (written by
 * the next cycle's call, after the evaluation that takes the edge). */
void dump_low(CoreRtl *x, uint64_t now)
{
    vars_sample(*x, now);
    dump_at(x, now * kTicksPerCycle, false);
    x->owed = true;
    x->owed_cycle = now;
}

/* The owed edge dump when the next cycle will not write it (the dump
 * pauses or ends, the engine resets, a cycle not the next one comes): the
 * pending edge taken at once with the owed cycle's inputs, still on the
 * ports (a quiet cycle's are the last evaluated one's, now_i included, as
 * the quiet cycle left them), and dumped; the next cycle loads its inputs
 * alone (ld_i). */
void flush_edge(CoreRtl *x)
{
    if (!x->owed)
        return;
    x->owed = false;
    take_pending(x);
    if (x->fst)
        dump_at(x, x->owed_cycle * kTicksPerCycle + kEdgeTick, true);
}

/* Before cycle now's clock-low dump: the owed dump of edge now-1 (the
 * callers flush one owed by another cycle first), of the model after that
 * edge (taken by this call's evaluation, or a quiet edge that changes
 * nothing) and cycle now's inputs. */
void owed_edge(CoreRtl *x, uint64_t now)
{
    if (x->owed) {
        x->owed = false;
        dump_at(x, (now - 1) * kTicksPerCycle + kEdgeTick, true);
    }
}

/* One cycle evaluated: its inputs registered by the pending edge (or
 * loaded alone), its outputs; its own edge left pending. While a wave is
 * written: edge now-1's dump (owed by the last cycle), then now's
 * clock-low dump, both of this one evaluation. */
void full_cycle(CoreRtl *x, core_pins_t *p, uint64_t now)
{
    Vhca_core &t = *x->top;
    const bool dump = x->fst && !x->paused;
    if (x->owed && (!dump || x->owed_cycle + 1 != now))
        flush_edge(x);
    drive(t, p, now);
    if (x->pending)
        take_pending(x);
    else
        pulse(t, false);
    if (dump) {
        owed_edge(x, now);
        dump_low(x, now);
    }

    /* This cycle's outputs. */
    p->db_ready = t.db_ready_o;
    p->fw_ready = t.fw_ready_o;
    p->fw_rvalid = t.fw_rvalid_o;
    p->fw_rdata = t.fw_rdata_o;
    p->fw_irq = t.fw_irq_o;
    p->fence_wait = t.fence_wait_o;
    p->drain_wait = t.drain_wait_o;
    p->dma_req_valid = t.dma_req_valid_o;
    from_port(p->dma_req, t.dma_req_o);
    p->dma_rsp_ready = t.dma_rsp_ready_o;
    p->tx_valid = t.tx_valid_o;
    from_port(p->tx, t.tx_o);
    p->rx_ready = t.rx_ready_o;
    p->xq_ready = t.xq_ready_o;
    p->xs_valid = t.xs_valid_o;
    p->xs_tag = t.xs_tag_o;
    p->xs_status = t.xs_status_o;
    p->xs_last = t.xs_last_o;
    p->xs_len = t.xs_len_o;
    p->xs_pa = t.xs_pa_o;
    x->quiet = t.quiet_o;
    x->wake_valid = t.wake_valid_o;
    x->wake = t.wake_o;

    x->pending = true;
}

/* After cycle now: the first cycle > now not known quiet. Quiet: the state
 * before now's edge was (quiet_o, from the registers) and now's inputs were
 * idle, so that edge changes nothing and the cycles after it are quiet as
 * well, until the RNR head's deadline, due in the first cycle c with
 * (uint32)(c - wake_o) < 2^31 (hca_requester's rn_ripe). Their outputs are
 * now's (the same registers, the same inputs: the level pins the harness
 * keeps across a skip, fw_irq, fence_wait, drain_wait, included). Not the
 * state reset leaves, before any edge: quiet_o is the claim about the next
 * edge of a state an edge made (the first edge after reset sets registers
 * whose reset values their inputs do not match, e.g. hca_ctx's
 * cq_inrange_q, none of them seen before). */
uint64_t quiet_after(const CoreRtl *x, uint64_t now, const core_pins_t &p)
{
    if (!x->edged || !x->quiet || !inputs_idle(p))
        return now + 1;
    if (!x->wake_valid)
        return UINT64_MAX;
    const uint32_t late = (uint32_t)now - x->wake;
    return late < 0x80000000u ? now + 1 : now + (uint64_t)(0u - late);
}

/* A quiet cycle with the inputs of the last one: nothing to evaluate (a
 * pending edge stays pending: it changes nothing), the outputs are the last
 * ones; the waves get the same two dumps as from a full cycle (the model's
 * signals unchanged: the dumps compare only the top's ports) and the
 * harness's variables. */
void quiet_cycle(CoreRtl *x, core_pins_t *p, uint64_t now)
{
    *p = x->last;
    if (!x->fst || x->paused)
        return;
    if (x->owed && x->owed_cycle + 1 != now)
        flush_edge(x);
    owed_edge(x, now);
    dump_low(x, now);
}

[[noreturn]] void check_failed(uint64_t now, const char *what)
{
    std::fprintf(stderr, "HCASIM_RTL_SKIP=check: the core declared cycle %llu quiet, but %s changed\n",
                 (unsigned long long)now, what);
    std::abort();
}

/* The model's whole state (the Verilated root: registers, memories, the
 * nets computed from them, the wrapper's input registers) against x->snap;
 * the time (now_i, the wrapper's now_q) and the scheduler's bookkeeping as
 * in the snapshot: the clocks' last values, the trace's activity flags,
 * and the translation unit's MPT and MTT "write at this edge" flags
 * (Verilator's __Vdlyvset: set by the edge that writes the memory, cleared
 * by the next one; a snapshot taken before a quiet stretch's first edge
 * may hold the write of the edge before). Verilator keeps those flags as
 * members or as locals of the edge's function, build by build (the
 * coverage build keeps them local: then they are no state to exclude), so
 * they are excluded where they are members. */
#define SAME_STATE_EXCLUDED(X)                                                                                         \
    X(now_i)                                                                                                           \
    X(hca_core_sim__DOT__now_q)                                                                                        \
    X(__Vtrigrprev__TOP__clk_i)                                                                                        \
    X(__Vtrigrprev__TOP__ld_i)                                                                                         \
    X(__Vm_traceActivity)
#define SAME_STATE_EXCLUDED_IF_MEMBER(X)                                                                               \
    X(__Vdlyvset__hca_core_sim__DOT__hca_core__DOT__u_xu__DOT__u_mpt__DOT__mem_q__v0)                                  \
    X(__Vdlyvset__hca_core_sim__DOT__hca_core__DOT__u_xu__DOT__u_mtt__DOT__mem_q__v0)

using Root = Vhca_core___024root;
struct Span {
    size_t off, len; /* len 0: not a member of this build's root */
};
/* span_<f>(r, 0): where member f lies in the root, if it has one. */
#define SPAN_OF(f)                                                                                                     \
    template <typename R> auto span_##f(const R &r, int)->decltype((void)r.f, Span())                                  \
    {                                                                                                                  \
        return {size_t((const unsigned char *)&r.f - (const unsigned char *)&r), sizeof r.f};                         \
    }                                                                                                                  \
    template <typename R> Span span_##f(const R &, long) { return {0, 0}; }
SAME_STATE_EXCLUDED(SPAN_OF)
SAME_STATE_EXCLUDED_IF_MEMBER(SPAN_OF)
#undef SPAN_OF

bool same_state(CoreRtl *x)
{
    Root &r = *x->top->rootp;
    unsigned char *rb = reinterpret_cast<unsigned char *>(&r);
    const unsigned char *sb = x->snap.data();
#define REQUIRED(f) static_assert(sizeof r.f > 0, "the root's " #f);
    SAME_STATE_EXCLUDED(REQUIRED)
#undef REQUIRED
#define SPAN(f) span_##f(r, 0),
    const Span spans[] = {SAME_STATE_EXCLUDED(SPAN) SAME_STATE_EXCLUDED_IF_MEMBER(SPAN)};
#undef SPAN
    std::vector<unsigned char> kept;
    for (const Span &sp : spans) { /* the snapshot's value swapped in, this one kept */
        kept.insert(kept.end(), rb + sp.off, rb + sp.off + sp.len);
        std::memcpy(rb + sp.off, sb + sp.off, sp.len);
    }
    const bool same = !std::memcmp(sb, rb, sizeof r);
    size_t k = 0;
    for (const Span &sp : spans) {
        std::memcpy(rb + sp.off, kept.data() + k, sp.len);
        k += sp.len;
    }
    return same;
}

void snap_state(CoreRtl *x)
{
    const unsigned char *r = reinterpret_cast<const unsigned char *>(x->top->rootp);
    x->snap.assign(r, r + sizeof *x->top->rootp);
}

/* Check mode, a cycle quiet_cycle would serve: evaluated, its outputs
 * required to be the last ones, and the whole state at the end of the
 * quiet cycles (check_state) as before the first. */
void check_cycle(CoreRtl *x, core_pins_t *p, uint64_t now)
{
    if (!x->snap_valid) {
        snap_state(x);
        x->snap_valid = true;
        x->snap_from = now;
    }
    full_cycle(x, p, now);
    if (std::memcmp(p, &x->last, sizeof *p))
        check_failed(now, "an output");
}

/* The end of a checked quiet stretch (cycle now its last): its last edge
 * taken with its inputs, then the whole state must be the snapshot's (taken
 * before the first quiet cycle: before the edge of the cycle that declared
 * the stretch too, when that edge was pending). */
void check_state(CoreRtl *x, uint64_t now)
{
    if (!x->snap_valid)
        return;
    x->snap_valid = false;
    if (x->pending) { /* a wave's owed dump stays owed: the next cycle writes it, after loading its inputs */
        drive(*x->top, &x->last, now);
        take_pending(x);
    }
    if (!same_state(x)) {
        char what[96];
        std::snprintf(what, sizeof what, "the state (in cycles %llu to %llu)", (unsigned long long)x->snap_from,
                      (unsigned long long)now);
        check_failed(x->snap_from, what);
    }
}

void rtl_cycle(void *eng, core_pins_t *p, uint64_t now)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    if (now < x->quiet_to && inputs_idle(*p) && same_inputs(*p, x->last)) {
        if (x->mode == kSkipCheck)
            check_cycle(x, p, now);
        else
            quiet_cycle(x, p, now);
        return;
    }
    if (x->snap_valid)
        check_state(x, now - 1);
    full_cycle(x, p, now);
    x->last = *p;
    x->quiet_to = x->mode == kSkipOff ? 0 : quiet_after(x, now, *p);
}

/* The harness may skip to here; while a wave is written every cycle is
 * stepped (quiet ones by quiet_cycle, cheaply), so the waves and the
 * harness's variables show each. */
uint64_t rtl_quiet_until(const void *eng, uint64_t next)
{
    const CoreRtl *x = static_cast<const CoreRtl *>(eng);
    if ((x->fst && !x->paused) || x->quiet_to < next)
        return next;
    return x->quiet_to;
}

/* Check mode: the skipped cycles stepped with the inputs of the last one
 * (idle: a quiet stretch starts only after a cycle with idle inputs), each
 * required to change nothing (check_cycle, check_state). Otherwise nothing
 * to do: the state is already what stepping would leave (a pending edge
 * changes nothing). */
void rtl_skip(void *eng, uint64_t from, uint64_t to)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    if (x->mode != kSkipCheck)
        return;
    core_pins_t p = x->last;
    for (uint64_t c = from; c < to; c++)
        rtl_cycle(eng, &p, c);
    check_state(x, to - 1);
}

int rtl_trace_open(void *eng, const char *path)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    flush_edge(x); /* into the file open before, if any */
    return trace_open(*x, path);
}

/* Paused after cycle now: its edge's dump written first (flush_edge). */
void rtl_trace_pause(void *eng, int paused)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    if (paused)
        flush_edge(x);
    x->paused = paused != 0;
}

int rtl_trace_vars(void *eng, const trace_vars_t *vars)
{
    if (!eng)
        return -EINVAL;
    static_cast<CoreRtl *>(eng)->vars.v = vars;
    static_cast<CoreRtl *>(eng)->vars.val.clear();
    return 0;
}

} // namespace

extern "C" const core_engine_ops_t core_rtl_ops = {
    "rtl",
    rtl_create,
    rtl_destroy,
    rtl_reset,
    rtl_cycle,
    rtl_trace_open,
    rtl_trace_close,
    rtl_quiet_until,
    rtl_skip, /* nothing to do but in check mode */
    rtl_trace_pause,
    rtl_trace_vars,
};
