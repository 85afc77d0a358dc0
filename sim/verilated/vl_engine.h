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
#include <unistd.h>
#include <new>

#include "hca_abi.h"
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

template <typename Top> struct VlEngine {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Top> top;
    std::unique_ptr<VerilatedFstC> fst;
    bool paused = false; /* between two windows of one file: no dump */
};

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
template <typename Top> int create(void **eng, const xu_params_t *params, const char *name, void (*reset_fn)(void *))
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
        std::unique_ptr<VlEngine<Top>> x(new VlEngine<Top>);
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

template <typename Top> void trace_close(VlEngine<Top> &e)
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

template <typename Top> void destroy(void *eng)
{
    if (!eng)
        return;
    VlEngine<Top> *x = static_cast<VlEngine<Top> *>(eng);
    trace_close(*x);
    x->top->final();
#if VM_COVERAGE
    coverage_write(*x->ctx, x->top->name());
#endif
    delete x;
}

/** Start an FST dump of every signal. 0, -EINVAL, -ENOMEM, or the errno of
 *  creating the file (the FST writer has no error path of its own). */
template <typename Top> int trace_open(VlEngine<Top> &e, const char *path)
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
