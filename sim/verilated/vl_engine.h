/* vl_engine.h — what every Verilated engine shim shares (C++, shims only).
 *
 * A shim keeps its Verilated top in a VlEngine<Top>; these templates give it
 * the reset sequence, the table-size rule and FST tracing, so the shims hold
 * only their own port mapping. Time in the wave: cycle n is ticks
 * [n * kTicksPerCycle, (n+1) * kTicksPerCycle), rising edge at +kEdgeTick.
 */
#ifndef VL_ENGINE_H
#define VL_ENGINE_H

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <unistd.h>
#include <new>
#include <vector>

#include "hca_abi.h"
#include "trace_vars.h"
#include "xu_engine.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

namespace vl_engine {

constexpr uint64_t kTicksPerCycle = HCA_TRACE_TICKS_PER_CYCLE;
constexpr uint64_t kEdgeTick = HCA_TRACE_TICKS_PER_CYCLE / 2;
constexpr int kResetCycles = 4;

/** The harness's variables (trace_vars.h) in a file: the trace code of each. */
struct VarsDump {
    const trace_vars_t *v = nullptr;
    std::vector<uint32_t> code;
    std::vector<uint64_t> val; /* v->val as sampled for the last dumped cycle */
};

struct NoExtra {};

/* Extra: what one shim keeps beside its model (core_rtl.cpp: the skip state). */
template <typename Top, typename Extra = NoExtra> struct VlEngine : Extra {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Top> top;
    std::unique_ptr<VerilatedFstC> fst;
    bool paused = false; /* between two windows of one file: no dump */
    VarsDump vars;       /* declared beside the model's signals by trace_open */
};

/* Enum type numbers of the harness's variables: above the model's own (1, 2, …). */
constexpr int kVarsEnumBase = 1 << 16;

/* Verilator's trace callbacks (its public registration API, as the Verilated
 * model's own trace code uses it): declare the variables at open, write them
 * at a full and at a change dump. Scopes become FST scopes (a space is
 * Verilator's scope separator in a declared name). */
inline void vars_init(void *self, VerilatedFst *t, uint32_t code)
{
    VarsDump &d = *static_cast<VarsDump *>(self);
    const trace_vars_t &v = *d.v;
    for (size_t e = 0; e < v.nenums; e++) {
        const trace_enum_t &en = v.enums[e];
        /* the values as wide as the variables of the type: GTKWave matches
           the digits it would print */
        unsigned bits = 0;
        for (size_t i = 0; i < v.nvars; i++)
            if (v.vars[i].enum_id == (int)e && v.vars[i].bits > bits)
                bits = v.vars[i].bits > 64 ? 64 : v.vars[i].bits;
        for (size_t i = 0; !bits && i < en.n; i++)
            while (bits < 64 && en.values[i] >> bits)
                bits++;
        bits = bits ? bits : 1;
        std::vector<std::string> vals(en.n);
        std::vector<const char *> np(en.n), vp(en.n);
        for (size_t i = 0; i < en.n; i++) {
            for (unsigned b = bits; b-- > 0;) /* binary digits, as Verilator writes enum values */
                vals[i] += (en.values[i] >> b & 1) ? '1' : '0';
            np[i] = en.names[i];
            vp[i] = vals[i].c_str();
        }
        t->declDTypeEnum(kVarsEnumBase + (int)e, en.name, (uint32_t)en.n, bits, np.data(), vp.data());
    }
    d.code.assign(v.nvars, 0);
    t->scopeEscape(' ');
    for (size_t i = 0; i < v.nvars; i++) {
        const trace_var_t &x = v.vars[i];
        std::string name = x.scope ? x.scope : "";
        for (char &ch : name)
            ch = ch == '.' ? ' ' : ch;
        name += std::string(name.empty() ? "" : " ") + x.name;
        const int dt = x.enum_id >= 0 && (size_t)x.enum_id < v.nenums ? kVarsEnumBase + x.enum_id : -1;
        const unsigned bits = x.bits < 1 ? 1 : x.bits > 64 ? 64 : x.bits;
        if (bits > 32 && (code & 1u))
            code++; /* a quad's old value is read as one 64-bit word: 8-byte aligned */
        d.code[i] = code;
        if (bits == 1)
            t->declBit(code, name.c_str(), dt, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1);
        else if (bits <= 32)
            t->declBus(code, name.c_str(), dt, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1, (int)bits - 1, 0);
        else
            t->declQuad(code, name.c_str(), dt, FST_VD_IMPLICIT, FST_VT_SV_LOGIC, false, -1, (int)bits - 1, 0);
        code += bits > 32 ? 2 : 1; /* the old-value words the variable takes */
    }
    t->scopeEscape('.');
}

template <bool Full> void vars_dump(void *self, VerilatedFst::Buffer *b)
{
    const VarsDump &d = *static_cast<const VarsDump *>(self);
    const trace_vars_t &v = *d.v;
    const uint64_t *val = d.val.size() == v.nvars ? d.val.data() : v.val;
    for (size_t i = 0; i < v.nvars; i++) {
        const unsigned bits = v.vars[i].bits < 1 ? 1 : v.vars[i].bits > 64 ? 64 : v.vars[i].bits;
        uint32_t *old = b->oldp(d.code[i]);
        const uint64_t x = val[i];
        if (bits == 1)
            Full ? b->fullBit(old, x & 1) : b->chgBit(old, x & 1);
        else if (bits <= 32)
            Full ? b->fullIData(old, (IData)x, (int)bits) : b->chgIData(old, (IData)x, (int)bits);
        else
            Full ? b->fullQData(old, (QData)x, (int)bits) : b->chgQData(old, (QData)x, (int)bits);
    }
}

/** Bring the harness's variables up to cycle now, before its first dump,
 *  and keep them: a later dump of this cycle (core_rtl.cpp writes a cycle's
 *  edge dump in the next cycle's call) shows them as sampled, not as the
 *  harness changed them since. */
template <typename E> void vars_sample(E &e, uint64_t now)
{
    if (!e.vars.v)
        return;
    if (e.vars.v->sample)
        e.vars.v->sample(e.vars.v->ctx, now);
    e.vars.val.assign(e.vars.v->val, e.vars.v->val + e.vars.v->nvars);
}

/* The rising edge that ends a cycle, every other input unchanged since the
 * clock-low eval(). Top::eval() would first run Verilator's input-
 * combinational region ("ico", run at every eval(): in a top whose inputs
 * reach its next-state logic, most of it), recomputing from the same inputs
 * what the clock-low eval() computed; this is its scheduler (Verilator
 * 5.006's generated _eval) without that region: the triggers, then the NBA
 * region until neither fires. The three parts are the model's generated
 * functions (VL_DEFINE_EDGE). settle(t) is the same loop on whatever edges
 * the caller set up: for a top whose inputs reach registers only (the core,
 * sim/verilated/hca_core_sim.sv), which has no ico region to skip. Only with
 * the Verilator whose scheduler it repeats, else eval() (-DVL_FAST_EDGE=0
 * too, to measure it). */
#ifndef VL_FAST_EDGE
#if VERILATOR_VERSION_INTEGER == 5006000 && !defined(VL_DEBUG)
#define VL_FAST_EDGE 1
#else
#define VL_FAST_EDGE 0
#endif
#endif

#if VL_FAST_EDGE
template <typename Root>
void fast_settle(Root *r, void (*triggers)(Root *), void (*act)(Root *), void (*nba)(Root *))
{
    r->vlSymsp->__Vm_activity = true;
    for (unsigned iter = 0;; iter++) {
        r->__VnbaTriggered.clear();
        r->__VactIterCount = 0;
        for (;;) {
            triggers(r);
            if (!r->__VactTriggered.any())
                break;
            if (++r->__VactIterCount > 100)
                VL_FATAL_MT(__FILE__, __LINE__, "", "Active region did not converge.");
            r->__VnbaTriggered.set(r->__VactTriggered);
            act(r);
        }
        if (!r->__VnbaTriggered.any())
            break;
        if (iter > 100)
            VL_FATAL_MT(__FILE__, __LINE__, "", "NBA region did not converge.");
        nba(r);
    }
    Verilated::endOfThreadMTask(r->vlSymsp->__Vm_evalMsgQp);
    Verilated::endOfEval(r->vlSymsp->__Vm_evalMsgQp);
}

/* edge(T &) and settle(T &) for the top T: its generated parts declared
 * (they have external linkage but no header), the shim having included
 * T__Syms.h and T___024root.h. At file scope. */
#define VL_DEFINE_EDGE(T)                                                                                              \
    void T##___024root___eval_triggers__act(T##___024root *);                                                          \
    void T##___024root___eval_act(T##___024root *);                                                                    \
    void T##___024root___eval_nba(T##___024root *);                                                                    \
    namespace vl_engine {                                                                                              \
    inline void settle(T &t)                                                                                           \
    {                                                                                                                  \
        fast_settle(t.rootp, T##___024root___eval_triggers__act, T##___024root___eval_act,                             \
                    T##___024root___eval_nba);                                                                         \
    }                                                                                                                  \
    inline void edge(T &t)                                                                                             \
    {                                                                                                                  \
        t.clk_i = 1;                                                                                                   \
        settle(t);                                                                                                     \
    }                                                                                                                  \
    }
#else
#define VL_DEFINE_EDGE(T)                                                                                              \
    namespace vl_engine {                                                                                              \
    inline void settle(T &t)                                                                                           \
    {                                                                                                                  \
        t.eval();                                                                                                      \
    }                                                                                                                  \
    inline void edge(T &t)                                                                                             \
    {                                                                                                                  \
        t.clk_i = 1;                                                                                                   \
        t.eval();                                                                                                      \
    }                                                                                                                  \
    }
#endif

/** Hold rst_ni low (asynchronous) over kResetCycles clocks with idle inputs,
 *  then release it while the clock is low. */
template <typename Top, typename Idle> void reset(Top &t, Idle idle_inputs)
{
    idle_inputs(t);
    t.rst_ni = 0;
    t.eval();
    for (int i = 0; i < kResetCycles; ++i) {
        t.clk_i = 1;
        t.eval();
        t.clk_i = 0;
        t.eval();
    }
    t.rst_ni = 1;
    t.eval();
}

/** Make an engine for these table sizes: -EINVAL for sizes no unit takes,
 *  -ENOTSUP for sizes other than the defaults it was Verilated with, -ENOMEM.
 *  The new engine has been reset with reset_fn. */
template <typename Top, typename E = VlEngine<Top>>
int create(void **eng, const xu_params_t *params, const char *name, void (*reset_fn)(void *))
{
    if (!eng)
        return -EINVAL;
    *eng = nullptr;
    const uint32_t mpt = params ? params->mpt_entries : HCA_MPT_ENTRIES_DEFAULT;
    const uint32_t mtt = params ? params->mtt_entries : HCA_MTT_ENTRIES_DEFAULT;
    if (!xu_table_size_ok(mpt) || !xu_table_size_ok(mtt))
        return -EINVAL;
    if (mpt != HCA_MPT_ENTRIES_DEFAULT || mtt != HCA_MTT_ENTRIES_DEFAULT)
        return -ENOTSUP;
    try {
        std::unique_ptr<E> x(new E);
        x->ctx.reset(new VerilatedContext);
        x->ctx->traceEverOn(true); /* must precede the model's construction */
        x->top.reset(new Top(x->ctx.get(), name));
        *eng = x.release();
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    }
    reset_fn(*eng);
    return 0;
}

template <typename E> void trace_close(E &e)
{
    e.paused = false;
    if (e.fst) {
        e.fst->close();
        e.fst.reset();
    }
}

#if VM_COVERAGE
/** A coverage build (sim/runner/coverage.mk): each engine writes what its
 *  run covered to $HCASIM_COVERAGE_DIR (default .) as NAME-PID-N.dat, one
 *  file per engine, for verilator_coverage to merge. */
inline void coverage_write(VerilatedContext &ctx, const char *name)
{
    static unsigned seq;
    const char *dir = std::getenv("HCASIM_COVERAGE_DIR");
    char path[4096];
    std::snprintf(path, sizeof path, "%s/%s-%ld-%u.dat", dir && *dir ? dir : ".", name, (long)getpid(), seq++);
    ctx.coveragep()->write(path);
}
#endif

template <typename Top, typename E = VlEngine<Top>> void destroy(void *eng)
{
    if (!eng)
        return;
    E *x = static_cast<E *>(eng);
    trace_close(*x);
    x->top->final();
#if VM_COVERAGE
    coverage_write(*x->ctx, x->top->name());
#endif
    delete x;
}

/** Start an FST dump of every signal. 0, -EINVAL, -ENOMEM, or the errno of
 *  creating the file (the FST writer has no error path of its own). */
template <typename E> int trace_open(E &e, const char *path)
{
    if (!path)
        return -EINVAL;
    trace_close(e);
    FILE *f = std::fopen(path, "wb");
    if (!f)
        return errno ? -errno : -EIO;
    std::fclose(f);
    try {
        e.fst.reset(new VerilatedFstC);
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    }
    e.top->trace(e.fst.get(), 99);
    if (e.vars.v && e.vars.v->nvars) {
        e.fst->spTrace()->addInitCb(vars_init, &e.vars);
        e.fst->spTrace()->addFullCb(vars_dump<true>, &e.vars);
        e.fst->spTrace()->addChgCb(vars_dump<false>, &e.vars);
    }
    e.fst->set_time_unit("1ns");
    e.fst->set_time_resolution("100ps");
    e.fst->open(path);
    if (!e.fst->isOpen()) {
        e.fst.reset();
        return -EIO;
    }
    return 0;
}

} // namespace vl_engine

#endif /* VL_ENGINE_H */
