/* xu_rtl.cpp — the Verilated translation unit (rtl/xlate_unit.sv) behind
 * xu_engine_ops_t (sim/iface/xu_engine.h). The only C++ in the simulator core.
 *
 * One engine = one VerilatedContext + one model, so engines are independent.
 * Per cycle: inputs are driven while the clock is low (the falling edge never
 * samples them), the model settles, the outputs of that cycle are read back,
 * then the rising edge is taken. Waves (FST) put cycle `now` at time now ns:
 * clock low at now*10, rising edge at now*10+5, in units of 100 ps.
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <new>

#include "Vxlate_unit.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#include "vl_engine.h"
#include "xu_engine.h"
#if VL_FAST_EDGE
#include "Vxlate_unit__Syms.h"
#include "Vxlate_unit___024root.h"
#endif
VL_DEFINE_EDGE(Vxlate_unit)

namespace {

using namespace vl_engine; /* wave timing, reset, table sizes, FST: shared with core_rtl.cpp */

using XuRtl = VlEngine<Vxlate_unit>;

/* Inputs to their idle values (clock low). */
void idle_inputs(Vxlate_unit &t)
{
    t.clk_i = 0;
    t.req_valid_i = 0;
    t.req_tag_i = 0;
    t.req_rights_i = 0;
    t.req_remote_i = 0;
    t.req_key_i = 0;
    t.req_pd_i = 0;
    t.req_len_i = 0;
    t.req_va_i = 0;
    t.rsp_ready_i = 0;
    t.fw_valid_i = 0;
    t.fw_write_i = 0;
    t.fw_addr_i = 0;
    t.fw_wdata_i = 0;
}

void rtl_reset(void *eng)
{
    reset(*static_cast<XuRtl *>(eng)->top, idle_inputs);
}

int rtl_create(void **eng, const xu_params_t *params)
{
    return create<Vxlate_unit>(eng, params, "xlate_unit", rtl_reset);
}

void rtl_trace_close(void *eng)
{
    trace_close(*static_cast<XuRtl *>(eng));
}

void rtl_destroy(void *eng)
{
    destroy<Vxlate_unit>(eng);
}

void rtl_cycle(void *eng, xu_pins_t *p, uint64_t now)
{
    XuRtl *x = static_cast<XuRtl *>(eng);
    Vxlate_unit &t = *x->top;

    /* The clock is low (lowered at the end of the previous cycle): drive the
     * inputs, masked to their port widths (Verilator assumes clean upper bits). */
    t.req_valid_i = p->req_valid & 1u;
    t.req_tag_i = p->req_tag;
    t.req_rights_i = p->req_rights & 0xfu;
    t.req_remote_i = p->req_remote & 1u;
    t.req_key_i = p->req_key;
    t.req_pd_i = p->req_pd & ((1u << HCA_PD_BITS) - 1u);
    t.req_len_i = p->req_len;
    t.req_va_i = p->req_va;
    t.rsp_ready_i = p->rsp_ready & 1u;
    t.fw_valid_i = p->fw_valid & 1u;
    t.fw_write_i = p->fw_write & 1u;
    t.fw_addr_i = p->fw_addr;
    t.fw_wdata_i = p->fw_wdata;
    t.eval();
    if (x->fst)
        x->fst->dump(now * kTicksPerCycle);

    /* The outputs during this cycle: the handshakes are judged from them. */
    p->req_ready = t.req_ready_o;
    p->rsp_valid = t.rsp_valid_o;
    p->rsp_tag = t.rsp_tag_o;
    p->rsp_status = t.rsp_status_o;
    p->rsp_last = t.rsp_last_o;
    p->rsp_len = t.rsp_len_o;
    p->rsp_pa = t.rsp_pa_o;
    p->fw_ready = t.fw_ready_o;
    p->fw_rvalid = t.fw_rvalid_o;
    p->fw_rdata = t.fw_rdata_o;

    /* The rising edge that ends the cycle (vl_engine.h: without
     * re-evaluating what reads the unchanged inputs). */
    edge(t);
    if (x->fst)
        x->fst->dump(now * kTicksPerCycle + kEdgeTick);
    /* Lowered now, evaluated with the next cycle's inputs: no logic is
     * sensitive to the falling edge. */
    t.clk_i = 0;
}

int rtl_trace_open(void *eng, const char *path)
{
    return trace_open(*static_cast<XuRtl *>(eng), path);
}

} // namespace

extern "C" const xu_engine_ops_t xu_rtl_ops = {
    "rtl",
    rtl_create,
    rtl_destroy,
    rtl_reset,
    rtl_cycle,
    rtl_trace_open,
    rtl_trace_close,
};
