/* core_rtl.cpp — the Verilated device core (rtl/hca_core.sv) behind
 * core_engine_ops_t (sim/iface/core_engine.h), as sim/verilated/xu_rtl.cpp does for the
 * translation unit.
 *
 * One engine = one VerilatedContext + one model. Per cycle: inputs are
 * driven while the clock is low, the model settles, the outputs of that
 * cycle are read back, then the rising edge is taken. Struct pins (dma_req,
 * dma_rsp, tx, rx) are the ABI structs' bytes in address order, which is
 * also how Verilator lays out a wide port (VlWide: 32-bit words, word 0 =
 * bits 31:0 = bytes 0..3 on a little-endian host), so they are copied as
 * they are. Waves (FST) put cycle `now` at time now ns.
 *
 * Time is an input (now_i, the cycle's low 32 bits), so a quiet core's state
 * stands still: after each edge the core says whether it is quiet (quiet_o,
 * from its registers) and until when (wake_o, an RNR deadline). The harness
 * skips the cycles between (quiet_until), except while a wave is written;
 * a quiet cycle it does step, with the inputs of the last one, is not
 * evaluated (quiet_cycle: the waves get the same dumps as from stepping).
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
    uint64_t quiet_to = 0; /* after the last evaluated cycle: quiet before this cycle */
    bool settled = false;  /* the last evaluated cycle was quiet, its inputs idle: its outputs hold */
    core_pins_t last = {}; /* the pins of the last evaluated cycle */
    std::vector<unsigned char> snap; /* check mode: the model's state before quiet cycles */
    bool snap_valid = false;         /* ... taken, at now_i snap_now, first quiet cycle snap_from */
    uint32_t snap_now = 0;
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

void rtl_reset(void *eng)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    reset(*x->top, idle_inputs);
    x->quiet_to = 0;
    x->settled = false;
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
    trace_close(*static_cast<CoreRtl *>(eng));
}

void rtl_destroy(void *eng)
{
    destroy<Vhca_core, CoreRtl>(eng);
}

/* Clock low: drive the inputs, masked to their port widths. */
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

/* One cycle evaluated: inputs, this cycle's outputs, the edge. */
void full_cycle(CoreRtl *x, core_pins_t *p, uint64_t now)
{
    Vhca_core &t = *x->top;
    drive(t, p, now);
    t.eval();
    const bool dump = x->fst && !x->paused;
    if (dump) {
        vars_sample(*x, now);
        x->fst->dump(now * kTicksPerCycle);
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

    /* The rising edge that ends the cycle; lowered now, evaluated with the
     * next cycle's inputs. */
    edge(t);
    if (dump)
        x->fst->dump(now * kTicksPerCycle + kEdgeTick);
    t.clk_i = 0;
}

/* After an edge: the first cycle >= next not known quiet. Quiet: quiet_o
 * (from the registers), and the level pins the harness keeps across a skip
 * (fw_irq, fence_wait, drain_wait) as the pins last showed them; until the
 * RNR head's deadline, due in the first cycle c with (uint32)(c - wake_o) <
 * 2^31 (hca_requester's rn_ripe). */
uint64_t quiet_after_edge(const CoreRtl *x, uint64_t next)
{
    const Vhca_core &t = *x->top;
    if (!t.quiet_o || t.fw_irq_o != x->last.fw_irq || t.fence_wait_o != x->last.fence_wait ||
        t.drain_wait_o != x->last.drain_wait)
        return next;
    if (!t.wake_valid_o)
        return UINT64_MAX;
    const uint32_t late = (uint32_t)next - t.wake_o;
    return late < 0x80000000u ? next : next + (uint64_t)(0u - late);
}

/* A quiet cycle with the inputs of the last one, itself evaluated in this
 * quiet state: nothing to evaluate, the outputs are the last ones; the waves get the clock's two dumps (the
 * model's signals unchanged: Verilator's trace compares only the top's
 * ports while no evaluation marked activity) and the harness's variables. */
void quiet_cycle(CoreRtl *x, core_pins_t *p, uint64_t now)
{
    *p = x->last;
    if (!x->fst || x->paused)
        return;
    Vhca_core &t = *x->top;
    vars_sample(*x, now);
    t.rootp->vlSymsp->__Vm_activity = true;
    x->fst->dump(now * kTicksPerCycle);
    t.clk_i = 1;
    t.rootp->vlSymsp->__Vm_activity = true;
    x->fst->dump(now * kTicksPerCycle + kEdgeTick);
    t.clk_i = 0;
}

[[noreturn]] void check_failed(uint64_t now, const char *what)
{
    std::fprintf(stderr, "HCASIM_RTL_SKIP=check: the core declared cycle %llu quiet, but %s changed\n",
                 (unsigned long long)now, what);
    std::abort();
}

/* The model's whole state (the Verilated root: registers, memories, the
 * nets computed from them) against x->snap, now_i taken as `as_now`; the
 * scheduler's bookkeeping (the clock's last value, the trace's activity
 * flags) as in the snapshot. */
bool same_state(CoreRtl *x, uint32_t as_now)
{
    using Root = Vhca_core___024root;
    Root &r = *x->top->rootp;
    const Root &s = *reinterpret_cast<const Root *>(x->snap.data());
    const uint32_t now = r.now_i;
    const CData clk = r.__Vtrigrprev__TOP__clk_i;
    unsigned char act[sizeof r.__Vm_traceActivity];
    std::memcpy(act, &r.__Vm_traceActivity, sizeof act);
    r.now_i = as_now;
    r.__Vtrigrprev__TOP__clk_i = s.__Vtrigrprev__TOP__clk_i;
    std::memcpy(&r.__Vm_traceActivity, &s.__Vm_traceActivity, sizeof act);
    const bool same = !std::memcmp(x->snap.data(), (const void *)&r, sizeof r);
    r.now_i = now;
    r.__Vtrigrprev__TOP__clk_i = clk;
    std::memcpy(&r.__Vm_traceActivity, act, sizeof act);
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
        x->snap_now = x->top->rootp->now_i;
        x->snap_from = now;
    }
    full_cycle(x, p, now);
    if (std::memcmp(p, &x->last, sizeof *p))
        check_failed(now, "an output");
}

void check_state(CoreRtl *x, uint64_t now)
{
    if (!x->snap_valid)
        return;
    x->snap_valid = false;
    if (!same_state(x, x->snap_now)) {
        char what[96];
        std::snprintf(what, sizeof what, "the state (in cycles %llu to %llu)", (unsigned long long)x->snap_from,
                      (unsigned long long)now);
        check_failed(x->snap_from, what);
    }
}

void rtl_cycle(void *eng, core_pins_t *p, uint64_t now)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    const bool quiet = now < x->quiet_to;
    if (quiet && x->settled && inputs_idle(*p) && same_inputs(*p, x->last)) {
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
    x->settled = quiet && inputs_idle(*p);
    x->quiet_to = x->mode == kSkipOff ? 0 : quiet_after_edge(x, now + 1);
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

/* Check mode: the skipped cycles stepped with the inputs held (valids low,
 * the rest as in the last cycle), each required to change nothing: the
 * first by the state before and after it, both settled with its inputs at
 * the clock low, the others by check_cycle. Otherwise nothing to do: the
 * state is already what stepping would leave. */
void rtl_skip(void *eng, uint64_t from, uint64_t to)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    if (x->mode != kSkipCheck)
        return;
    Vhca_core &t = *x->top;
    core_pins_t p = x->last;
    p.db_valid = p.fw_valid = p.dma_rsp_valid = p.rx_valid = p.xq_valid = 0;
    const core_pins_t out = x->last;
    check_state(x, from - 1);
    if (!x->settled) {
        drive(t, &p, from);
        t.eval();
        snap_state(x);
        full_cycle(x, &p, from);
        drive(t, &p, from);
        t.eval();
        if (!same_state(x, (uint32_t)from))
            check_failed(from, "the state");
        /* no valid, and the levels the harness keeps from the last cycle
           (fw_irq, fence_wait, drain_wait) as they were */
        if (p.dma_req_valid || p.tx_valid || p.xs_valid || p.fw_rvalid || p.fw_irq != out.fw_irq ||
            p.fence_wait != out.fence_wait || p.drain_wait != out.drain_wait)
            check_failed(from, "an output");
        x->last = p;
        x->settled = true;
        from++;
    }
    for (uint64_t c = from; c < to; c++)
        rtl_cycle(eng, &p, c);
    check_state(x, to - 1);
}

int rtl_trace_open(void *eng, const char *path)
{
    return trace_open(*static_cast<CoreRtl *>(eng), path);
}

void rtl_trace_pause(void *eng, int paused)
{
    static_cast<CoreRtl *>(eng)->paused = paused != 0;
}

int rtl_trace_vars(void *eng, const trace_vars_t *vars)
{
    if (!eng)
        return -EINVAL;
    static_cast<CoreRtl *>(eng)->vars.v = vars;
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
