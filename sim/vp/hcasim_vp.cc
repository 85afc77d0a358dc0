// hcasim-vp — run a scenario file on the example virtual platform
// (vp_platform.h): the scenario runner and the reference driver run on the
// platform's CPU thread, reaching the HCA's SystemC module over TLM-2.0 and
// its interrupt line. Prints what `hcasim run FILE` prints; the completions,
// statuses and memory are the same, the cycle counts are the platform's
// (the device runs up to a quantum ahead of the CPU: docs/cosim.md).
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "scenario.h"
#include "vp_platform.h"

using namespace sc_core;

namespace {

void usage(FILE *f)
{
    fprintf(f, "usage: hcasim-vp FILE [--engine rtl|model] [--quantum NS] [--period NS] [-v] [--seed N]\n"
               "                 [--json OUT] [--firmware ELF] [--trace OUT.fst [--trace-from C] [--trace-to C]]\n"
               "                 [--fw-profile OUT] [--peer-stats DIR]\n"
               "\n"
               "Run a scenario file (docs/scenarios.md) on an example SystemC TLM-2.0 virtual\n"
               "platform: memory, a router, the HCA module (sim/systemc/hca_sc.h) and a CPU thread\n"
               "running the scenario runner and the reference driver over TLM (docs/cosim.md).\n"
               "Exit codes as `hcasim run`.\n"
               "\n"
               "  --engine rtl|model   the device's engine (default rtl)\n"
               "  --quantum NS         the global quantum (default 1000 ns)\n"
               "  --period NS          one device cycle (default 4 ns)\n"
               "  other options        as `hcasim run` (hcasim run --help)\n");
}

} // namespace

int sc_main(int argc, char *argv[])
{
    // Output as `hcasim run`'s: no note that the CPU stopped the simulation.
    sc_report_handler::set_actions("/OSCI/SystemC", SC_INFO, SC_DO_NOTHING);
    scn_run_opts_t o;
    memset(&o, 0, sizeof o);
    o.engine = SCN_ENGINE_RTL;
    const char *file = nullptr;
    uint64_t quantum_ns = 1000, period_ns = 4;
    char err[1024];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : nullptr;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        }
        if (a[0] != '-' && !file) {
            file = a;
            continue;
        }
        if (v && (!strcmp(a, "--quantum") || !strcmp(a, "--period"))) {
            uint64_t &n = !strcmp(a, "--quantum") ? quantum_ns : period_ns;
            char *end;
            n = strtoull(v, &end, 0);
            if (!*v || *end || v[0] == '-' || n == 0) {
                fprintf(stderr, "hcasim-vp: %s %s: expected a positive number of ns\n", a, v);
                return 2;
            }
            i++;
            continue;
        }
        const int t = scn_parse_run_option(argc, argv, &i, &o, err, sizeof err);
        if (t <= 0) {
            if (t < 0)
                fprintf(stderr, "hcasim-vp: %s\n", err);
            else
                fprintf(stderr, "hcasim-vp: unexpected argument '%s'%s\n", a, a[0] == '-' && !v ? " (missing value?)" : "");
            return 2;
        }
    }
    if (o.engine != SCN_ENGINE_RTL && o.engine != SCN_ENGINE_MODEL) {
        fprintf(stderr, "hcasim-vp: --engine %s: the platform holds one device (rtl or model)\n",
                o.engine == SCN_ENGINE_BOTH ? "both" : "lockstep");
        return 2;
    }
    if (!file) {
        usage(stderr);
        return 2;
    }
    if (scn_check_opts(&o, err, sizeof err)) {
        fprintf(stderr, "hcasim-vp: command line: %s\n", err);
        return 2;
    }
    scn_t *s = nullptr;
    if (scn_load(file, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        if (o.json_out)
            scn_write_load_error_json(o.json_out, file, err, o.engine);
        return 2;
    }
    hca_dev_config_t cfg;
    if (scn_device_config(s, &o, o.engine, &cfg, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        scn_free(s);
        return 2;
    }

    // The device is built with the scenario's configuration, then the
    // simulation runs until the CPU's thread is done.
    const sc_time period((double)period_ns, SC_NS);
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_time((double)quantum_ns, SC_NS));
    std::unique_ptr<vp_platform> vp;
    std::string why;
    try {
        vp.reset(new vp_platform("vp", cfg, period));
    } catch (const sc_report &e) { // the device refused its configuration or firmware
        why = e.get_msg();
    }
    int rc = SCN_ERROR;
    if (!vp) { // reported at the op that needs the device, as `hcasim run` does
        scn_target_t t = {{nullptr, nullptr}, nullptr, 0, why.c_str()};
        rc = scn_run_on(s, &o, o.engine, &t);
        scn_free(s);
        return rc;
    }
    vp->cpu.body = [&](vp_cpu &cpu) {
        // Wait for CQEs a quantum at a time: the device's own thread runs up
        // to a quantum ahead, so looking more often gains nothing.
        uint64_t chunk = (uint64_t)(tlm_utils::tlm_quantumkeeper::get_global_quantum() / period);
        scn_target_t t = {cpu.host(), vp->hca.dev(), chunk ? chunk : 1, nullptr};
        rc = scn_run_on(s, &o, o.engine, &t);
    };
    sc_start();
    vp.reset();
    scn_free(s);
    return rc;
}

// Output as `hcasim run`'s: SystemC's banner off.
int main(int argc, char *argv[]) { return vp_main(argc, argv); }
