// bench_cosim — what each boundary to the device costs against the
// in-process C API (hca_dev_host), in one run: the same driver work through
// the host boundary in process, over TLM-2.0 (the hcasim-vp platform, one
// quantum of decoupling) and over the socket (`hcasim serve`, fork/exec'd).
// Measured (fastest of 3 rounds each), on the model engine (whose device cost is lowest, so the
// boundary's shows most):
//   MMIO      wall time per BAR0 read (the interrupt block's MASK);
//   DMA byte  wall time per payload byte of an RDMA WRITE: a session moving
//             1 MiB minus one moving 4 KiB, over the 1 MiB - 4 KiB between
//             (the payload is read by the device and written back: both
//             crossings of the boundary's DMA path);
//   session   wall time of the 4 KiB session after a first one (open, QUERY_DEVICE, PD, MR,
//             CQ, QP pair, RDMA WRITE, poll, close);
//   scenario  wall time of `hcasim run FILE` against `hcasim-vp FILE` (whole
//             processes, best of 3), for the scenario files given.
// Printed as a table with the ratios to in process. Exit 1 only when a
// session's result was wrong (no completion, wrong payload): never on time.
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cosim_workload.h"
#include "hca_client.h"
#include "hca_dev.h"
#include "hostmem.h"
#include "vp_platform.h"

using namespace sc_core;

namespace {

const uint32_t SMALL = 4096, BIG = 1u << 20;
const unsigned MMIO_N = 200000;
// Each figure is the fastest of REPS rounds: the machine is shared, and the
// fastest round is the one least disturbed.
const unsigned REPS = 3;

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct result {
    const char *name;
    double mmio_ns = 0, byte_ns = 0, session_ms = 0;
    bool ok = false;
    std::string why;
};

// The measured work, on any host boundary. Sessions run one after the other
// on the same device (each opens and closes the driver); the first, which
// waits for the firmware's boot, is not timed.
void measure(const hca_host_t &h, result &r)
{
    uint32_t v = 0;
    double best = 1e9;
    for (unsigned k = 0; k < REPS; k++) {
        const double t0 = now_s();
        for (unsigned i = 0; i < MMIO_N / REPS; i++)
            h.ops->mmio_read(h.ctx, HCA_HOST_IRQ_OFFSET + HCA_HOST_IRQ_MASK, &v);
        best = std::min(best, now_s() - t0);
    }
    r.mmio_ns = best / (MMIO_N / REPS) * 1e9;
    cosim_outcome first;
    cosim_workload(h, first, SMALL); /* waits out the firmware's boot: not the boundary's cost */
    double t_small = 1e9, t_big = 1e9;
    r.ok = true;
    for (unsigned k = 0; k < REPS; k++) {
        cosim_outcome small, big;
        const double t0 = now_s();
        cosim_workload(h, small, SMALL);
        const double t1 = now_s();
        cosim_workload(h, big, BIG);
        const double t2 = now_s();
        t_small = std::min(t_small, t1 - t0);
        t_big = std::min(t_big, t2 - t1);
        const bool ok = small.polled == 1 && big.polled == 1 && small.payload_equal && big.payload_equal &&
                        small.wc.status == HCA_WC_STATUS_SUCCESS && big.wc.status == HCA_WC_STATUS_SUCCESS;
        if (!ok && r.ok)
            r.why = "open " + std::to_string(small.open) + "/" + std::to_string(big.open) + ", polled " +
                    std::to_string(small.polled) + "/" + std::to_string(big.polled) + ", payload " +
                    (small.payload_equal ? "ok" : "WRONG") + "/" + (big.payload_equal ? "ok" : "WRONG");
        r.ok = r.ok && ok;
    }
    r.session_ms = t_small * 1e3;
    r.byte_ns = (t_big - t_small) / (BIG - SMALL) * 1e9;
}

void in_process(result &r)
{
    hostmem_t *mem = nullptr;
    hca_dev_t *dev = nullptr;
    hca_dev_config_t cfg{};
    cfg.engine = DEV_ENGINE_MODEL;
    char err[256] = "";
    if (hostmem_create(&mem) || hca_dev_create(&dev, &cfg, mem, err, sizeof err)) {
        r.why = std::string("device: ") + err;
        return;
    }
    measure(hca_dev_host(dev), r);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
}

void socket_(result &r)
{
    cosim_server srv("/tmp/hcasim-bench-cosim-" + std::to_string(getpid()) + ".sock", "model", 1);
    hca_client_t *cl = nullptr;
    if (srv.connect(&cl, &r.why))
        return;
    r.why.clear();
    measure(hca_client_host(cl), r);
    hca_client_close(cl);
}

// One scenario file as whole processes: best of 3 wall times, or < 0 when it did not pass.
double run_file(const std::string &cmd)
{
    double best = -1;
    for (int i = 0; i < 3; i++) {
        const double t0 = now_s();
        const int st = system((cmd + " > /dev/null 2>&1").c_str());
        const double dt = now_s() - t0;
        if (st != 0)
            return -1;
        best = best < 0 || dt < best ? dt : best;
    }
    return best;
}

} // namespace

// SystemC's banner off (vp_platform.h).
int main(int argc, char *argv[]) { return vp_main(argc, argv); }

int sc_main(int argc, char *argv[])
{
    result r[3];
    r[0].name = "in process (hca_dev_host)";
    r[1].name = "TLM-2.0 (hcasim-vp platform)";
    r[2].name = "socket (hcasim serve)";
    in_process(r[0]);
    {
        hca_dev_config_t cfg{};
        cfg.engine = DEV_ENGINE_MODEL;
        tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time(1, SC_US));
        std::unique_ptr<vp_platform> vp(new vp_platform("bench", cfg, sc_time(4, SC_NS)));
        vp->cpu.body = [&](vp_cpu &cpu) { measure(cpu.host(), r[1]); };
        sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
        sc_start();
    }
    socket_(r[2]);

    int bad = 0;
    printf("bench-cosim: each boundary against the in-process C API, model engine, one run\n");
    printf("  %-30s %12s %7s %12s %7s %12s %7s\n", "boundary", "MMIO ns", "ratio", "DMA ns/byte", "ratio",
           "session ms", "ratio");
    for (const result &x : r) {
        if (!x.ok) {
            printf("  %-30s FAILED: %s\n", x.name, x.why.c_str());
            bad = 1;
            continue;
        }
        printf("  %-30s %12.1f %6.1fx %12.3f %6.1fx %12.2f %6.1fx\n", x.name, x.mmio_ns, x.mmio_ns / r[0].mmio_ns,
               x.byte_ns, x.byte_ns / r[0].byte_ns, x.session_ms, x.session_ms / r[0].session_ms);
    }
    const std::string dir = cosim_exe_dir();
    if (argc > 1)
        printf("  %-44s %10s %10s %7s\n", "scenario (model engine, process wall s)", "hcasim run", "hcasim-vp",
               "ratio");
    for (int i = 1; i < argc; i++) {
        const double a = run_file(dir + "/hcasim run " + argv[i] + " --engine model");
        const double b = run_file(dir + "/hcasim-vp " + argv[i] + " --engine model");
        if (a < 0 || b < 0) {
            printf("  %-44s FAILED (did not pass)\n", argv[i]);
            bad = 1;
            continue;
        }
        printf("  %-44s %10.3f %10.3f %6.1fx\n", argv[i], a, b, b / a);
    }
    return bad;
}
