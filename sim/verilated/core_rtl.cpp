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
 * from its registers) and until when (wake_o, an RNR deadline), and the
 * harness skips the cycles between (quiet_until; the skipped cycles leave no
 * change in the waves, which keep their timestamps). HCASIM_RTL_SKIP=0 steps
 * every cycle (to check that skipping changes nothing); =check steps every
 * skipped cycle too, with the inputs held idle, and aborts at the first
 * output or register that moves (the proof that quiet_o is right).
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

#include "Vhca_core___024root.h"
#if VL_FAST_EDGE
#include "Vhca_core__Syms.h"
#endif
VL_DEFINE_EDGE(Vhca_core)

namespace {

using namespace vl_engine;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "VlWide words are copied as host bytes");

enum SkipMode { kSkipOff, kSkipOn, kSkipCheck };

struct SkipState {
    SkipMode mode = kSkipOn;
    uint8_t fw_irq = 0;  /* the fw_irq pin of the last cycle: a rise since is not quiet */
    core_pins_t in = {}; /* check mode: the last cycle's pins (inputs held in skipped cycles) */
    std::vector<unsigned char> snap; /* check mode: the model's state at a skip's start */
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
    reset(*static_cast<CoreRtl *>(eng)->top, idle_inputs);
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

void rtl_cycle(void *eng, core_pins_t *p, uint64_t now)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    Vhca_core &t = *x->top;

    /* Clock low: drive the inputs, masked to their port widths. */
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
    x->fw_irq = p->fw_irq;
    if (x->mode == kSkipCheck)
        x->in = *p;
}

/* After the last edge: quiet (quiet_o, and fw_irq_o as the pins last saw it)
 * until the RNR head's deadline, due in the first cycle t with
 * (uint32)(t - wake_o) < 2^31 (hca_requester's rn_ripe). */
uint64_t rtl_quiet_until(const void *eng, uint64_t next)
{
    const CoreRtl *x = static_cast<const CoreRtl *>(eng);
    const Vhca_core &t = *x->top;
    if (x->mode == kSkipOff || !t.quiet_o || t.fw_irq_o != x->fw_irq)
        return next;
    if (!t.wake_valid_o)
        return UINT64_MAX;
    const uint32_t late = (uint32_t)next - t.wake_o;
    return late < 0x80000000u ? next : next + (uint64_t)(0u - late);
}

[[noreturn]] void check_failed(uint64_t now, const char *what)
{
    std::fprintf(stderr, "HCASIM_RTL_SKIP=check: the core declared cycle %llu quiet, but %s moved\n",
                 (unsigned long long)now, what);
    std::abort();
}

/* Check mode: step the skipped cycles with the inputs held (valids low, the
 * rest as in the last cycle) and require every output to stay as in the
 * first of them and the model's whole state (registers and memories; now_i
 * aside) to end as it was after that cycle. Skipping does nothing else: the
 * state is already what stepping would leave. */
void rtl_skip(void *eng, uint64_t from, uint64_t to)
{
    CoreRtl *x = static_cast<CoreRtl *>(eng);
    if (x->mode != kSkipCheck)
        return;
    Vhca_core &t = *x->top;
    core_pins_t p = x->in;
    p.db_valid = p.fw_valid = p.dma_rsp_valid = p.rx_valid = p.xq_valid = 0;
    core_pins_t first = {};
    for (uint64_t c = from; c < to; c++) {
        rtl_cycle(eng, &p, c);
        if (c == from) {
            first = p;
            x->snap.assign((const unsigned char *)t.rootp, (const unsigned char *)t.rootp + sizeof *t.rootp);
        }
        if (p.dma_req_valid || p.tx_valid || p.xs_valid || p.fw_rvalid)
            check_failed(c, "a valid output");
        if (std::memcmp(&p, &first, sizeof p))
            check_failed(c, "an output");
    }
    /* the state after the last skipped cycle, now_i as after the first */
    const uint32_t now_last = t.rootp->now_i;
    t.rootp->now_i = (uint32_t)from;
    const bool same = !std::memcmp(x->snap.data(), (const void *)t.rootp, sizeof *t.rootp);
    t.rootp->now_i = now_last;
    if (!same)
        check_failed(to - 1, "the state");
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
