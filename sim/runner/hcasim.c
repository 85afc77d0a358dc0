/* hcasim — the command-line front end.
 *
 *   hcasim demo       [--engine rtl|model] [--firmware ELF] [--trace OUT.fst [--trace-from C] [--trace-to C]]
 *   hcasim xlate-demo [--engine rtl|model] [--trace OUT.fst [--trace-from C] [--trace-to C]]
 *   hcasim run FILE   [--engine rtl|model|both|lockstep] [--seed N] [--json OUT] [-v] [--validate] [--firmware ELF]
 *                     [--trace OUT.fst [--trace-from C] [--trace-to C] [--trace-when EXPR[@B[:A]]]...]
 *                     [--waves-on-fail[=DIR]] [--waves-window B[:A]] [--fw-profile OUT] [--peer-stats DIR]
 *                     (--engine both: sim/runner/scn_both.h; waves: scn_waves.c, docs/waves.md)
 *   hcasim regress    [LIST] [OPTIONS] | merge DIR... --out DIR   (sim/runner/regress.py, docs/regress.md)
 *   hcasim serve --socket PATH [--engine rtl|model] [--firmware ELF] [--clients N]
 *                     (the device in this process, a driver in another: hca_serve.h, docs/cosim.md)
 *
 * Exit codes: 0 success, 1 a check failed, 2 bad usage or the run could not start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hca_dev.h"
#include "hca_serve.h"
#include "hcadrv.h"
#include "scenario.h"
#include "xu.h"

static void usage(FILE *f)
{
    fputs("usage: hcasim COMMAND [OPTIONS]\n"
          "\n"
          "commands:\n"
          "  demo         boot the device (firmware on its RV32IM core + translation\n"
          "               unit), drive its command mailbox through the reference\n"
          "               driver: query, PD, register host memory, translate through\n"
          "               it, allocate a fast-reg MR, destroy, show the stale key fail\n"
          "  xlate-demo   drive the translation unit (key checker + MPT + MTT) through a\n"
          "               set of requests and print each request, its response beats\n"
          "               and its latency in cycles\n"
          "  run FILE     run a scenario file (docs/scenarios.md): exit 0 when every\n"
          "               expectation held, 1 at the first mismatch, 2 when the file\n"
          "               cannot be run (FILE:LINE: reason)\n"
          "  regress      run a test list in parallel (scenarios, generators with\n"
          "               seeds, GoogleTest binaries): progress, timeouts, reseeding,\n"
          "               sharding, JUnit/JSON results, failures re-run with waves\n"
          "               (docs/regress.md; 'hcasim regress --help')\n"
          "  serve        the device in its own process, for a driver in another: a\n"
          "               Unix socket (docs/cosim.md; 'hcasim serve --help')\n"
          "  help         this text (also -h, --help; 'hcasim run --help' for run's)\n"
          "\n"
          "options:\n"
          "  --engine rtl|model   Verilated RTL (default) or the C model\n"
          "  --firmware ELF       firmware image (default: the one make builds)\n"
          "  --trace OUT.fst      dump waves (RTL only; with run --engine both, of the RTL run)\n"
          "  --trace-from C       first traced cycle (default 0)\n"
          "  --trace-to C         first cycle no longer traced (default: end of run)\n"
          "\n"
          "run options:\n"
          "  --engine both        the RTL and the model device side by side, op by op:\n"
          "                       exit 1 at the first functional divergence (FILE:LINE,\n"
          "                       the op, both values); the model's post->CQE latency\n"
          "                       error against the RTL (median, p95, max; per WR with -v)\n"
          "  --seed N             override the scenario's seed (device op)\n"
          "  --json OUT           write the result as JSON (docs/scenarios.md)\n"
          "  -v                   one line per op: cycle, line, op, result\n"
          "  --validate           check the whole file, run nothing (exit 0 or 2)\n"
          "  --fw-profile OUT     write the firmware's busy cycles per function to OUT\n",
          f);
}

static void run_usage(FILE *f)
{
    fputs("usage: hcasim run FILE [--engine rtl|model|both|lockstep] [--seed N] [--json OUT] [-v] [--validate]\n"
          "                  [--firmware ELF] [--trace OUT.fst [--trace-from C] [--trace-to C]]\n"
          "                  [--trace-when EXPR[@BEFORE[:AFTER]]]... [--waves-on-fail[=DIR]] [--waves-window B[:A]]\n"
          "                  [--fw-profile OUT] [--peer-stats DIR]\n"
          "\n"
          "Run a scenario file (docs/scenarios.md): exit 0 when every expectation held,\n"
          "1 at the first mismatch, 2 when the file cannot be run (FILE:LINE: reason).\n"
          "\n"
          "  --engine rtl|model   Verilated RTL (default) or the C model\n"
          "  --engine lockstep    one device whose core is the RTL and the model fed the same\n"
          "                       pins every cycle: the first output pin that differs (cycle,\n"
          "                       pin, both values) fails the run (as slow as rtl)\n"
          "  --engine both        the RTL and the model device side by side, op by op; exit 1\n"
          "                       on a failure on either engine or at the first functional\n"
          "                       divergence (completion fields, check_mem bytes, check_mr\n"
          "                       fields, checker verdicts: FILE:LINE, the op, both values);\n"
          "                       prints the model's post->CQE latency error against the RTL\n"
          "                       (median, p95, max; each WR's with -v), in --json too\n"
          "  --seed N             override the scenario's seed (device op)\n"
          "  --json OUT           write the result as JSON (docs/scenarios.md)\n"
          "  -v                   one line per op: cycle, line, op, result (with --engine\n"
          "                       both, each engine's, labelled)\n"
          "  --validate           check the whole file, run nothing (exit 0 or 2)\n"
          "  --firmware ELF       firmware image (default: the one make builds)\n"
          "  --trace OUT.fst      dump waves (RTL only; with --engine both, of the RTL run)\n"
          "  --trace-from C       first traced cycle (default 0)\n"
          "  --trace-to C         first cycle no longer traced (default: end of run)\n"
          "  --trace-when EXPR[@BEFORE[:AFTER]]\n"
          "                       (repeatable) trace only windows around each hit of EXPR into\n"
          "                       --trace's file: key=K, mpt=I, mr=NAME, qp=N|NAME (a DMA,\n"
          "                       packet, validity change or fence through it), line=L (that\n"
          "                       op runs), breach\n"
          "                       (issue to landing of each); BEFORE/AFTER cycles (default\n"
          "                       --waves-window's). The run goes untraced on any engine, then\n"
          "                       re-runs on the RTL traced; OUT.gtkw gets markers at the hits\n"
          "  --waves-on-fail[=DIR] on a breach, divergence or failed expectation, re-run on the\n"
          "                       RTL traced around it: DIR/STEM.fst and DIR/STEM.gtkw (markers\n"
          "                       at issue, invalidation, landing; default DIR hcasim-waves)\n"
          "  --waves-window B[:A] cycles traced before and after (default 5000:500)\n"
          "  --fw-profile OUT     write the firmware's busy cycles per function to OUT\n"
          "                       (with --engine both, the RTL run's)\n"
          "  --peer-stats DIR     write each peer client's counters as files\n"
          "                       DIR/memory_peers/<client>/<counter> (the Peer-Direct\n"
          "                       seed's sysfs tree), and \"version\"\n"
          "  -h, --help           this text\n",
          f);
}

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

typedef struct cli_opts {
    dev_engine_kind_t engine;
    const char *firmware;
    const char *trace;
    uint64_t trace_from, trace_to;
} cli_opts_t;

/* Parses argv[first..]; returns 0, or prints the reason and returns 2, or
 * prints the usage for --help and returns -1 (exit 0). */
static int parse_opts(int argc, char **argv, int first, cli_opts_t *o)
{
    o->engine = DEV_ENGINE_RTL;
    o->firmware = NULL;
    o->trace = NULL;
    o->trace_from = 0;
    o->trace_to = UINT64_MAX;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (is_help(a)) {
            usage(stdout);
            return -1;
        }
        if (!strcmp(a, "--engine") && v) {
            if (!strcmp(v, "rtl"))
                o->engine = DEV_ENGINE_RTL;
            else if (!strcmp(v, "model"))
                o->engine = DEV_ENGINE_MODEL;
            else {
                fprintf(stderr, "hcasim: --engine %s: expected rtl or model\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--firmware") && v) {
            o->firmware = v;
        } else if (!strcmp(a, "--trace") && v) {
            o->trace = v;
        } else if (!strcmp(a, "--trace-from") && v) {
            if (scn_parse_u64(v, &o->trace_from)) {
                fprintf(stderr, "hcasim: --trace-from %s: expected a cycle number\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--trace-to") && v) {
            if (scn_parse_u64(v, &o->trace_to)) {
                fprintf(stderr, "hcasim: --trace-to %s: expected a cycle number\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "hcasim: unexpected argument '%s'%s\n", a, v ? "" : " (missing value?)");
            return 2;
        }
        i++;
    }
    return 0;
}

/* ------------------------------------------------------------------ xlate-demo */

enum { DEMO_PD = 5, DEMO_OTHER_PD = 6 };

static hca_mpt_entry_t demo_mr(uint32_t index, uint8_t key_byte, unsigned kind, unsigned state,
                               unsigned access, uint64_t iova, uint64_t length, unsigned page_shift,
                               uint32_t mtt_base, uint32_t mtt_count)
{
    hca_mpt_entry_t e;
    memset(&e, 0, sizeof e);
    hca_mpt_entry_set_alloc(&e, 1);
    hca_mpt_entry_set_state(&e, state);
    hca_mpt_entry_set_kind(&e, kind);
    hca_mpt_entry_set_mode(&e, HCA_MKEY_MODE_MTT);
    hca_mpt_entry_set_access(&e, access);
    hca_mpt_entry_set_page_shift(&e, page_shift);
    e.key = (index << HCA_KEY_INDEX_SHIFT) | key_byte;
    e.pd = DEMO_PD;
    e.iova = iova;
    e.length = length;
    e.mtt_base = mtt_base;
    e.mtt_count = mtt_count;
    return e;
}

typedef struct demo_case {
    const char *what;
    xu_req_t req;
    unsigned expect; /* expected status of the last beat */
} demo_case_t;

static void format_rights(char *buf, size_t n, unsigned rights)
{
    buf[0] = 0;
    for (unsigned b = 0; b < HCA_ACCESS_WIDTH; b++)
        if (rights & (1u << b))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? "|" : "", hca_access_bit_name(b));
    if (!buf[0])
        snprintf(buf, n, "LOCAL_READ");
}

static int cmd_xlate_demo(const cli_opts_t *o)
{
    xu_t *xu = NULL;
    int rc = xu_create(&xu, o->engine == DEV_ENGINE_RTL ? XU_ENGINE_RTL : XU_ENGINE_MODEL, NULL); /* the unit alone */
    if (rc) {
        fprintf(stderr, "hcasim: cannot create the %s engine: %s\n",
                dev_engine_name(o->engine), strerror(-rc));
        return 2;
    }
    if (o->trace && (rc = xu_trace_open(xu, o->trace, o->trace_from, o->trace_to))) {
        fprintf(stderr, "hcasim: --trace %s: %s\n", o->trace, strerror(-rc));
        xu_destroy(xu);
        return 2;
    }
    const uint32_t A = HCA_ACCESS_ALL;
    /* MR 1: regular, 4 pages of 4 KiB at iova 0x7000_0000_0800 (first-byte offset 0x800).
     * MR 2: fast-reg, FREE (allocated, never registered).
     * MR 3: regular, local only, 2 MiB pages. MR 4: DMA kind (no translation). */
    hca_mpt_entry_t mrs[] = {
        demo_mr(1, 0x2a, HCA_MKEY_KIND_REGULAR, HCA_MKEY_STATE_VALID, A, 0x700000000800ull, 0x3800, 12, 0, 4),
        demo_mr(2, 0x07, HCA_MKEY_KIND_FAST_REG, HCA_MKEY_STATE_FREE, 0, 0, 0, 12, 4, 16),
        demo_mr(3, 0x99, HCA_MKEY_KIND_REGULAR, HCA_MKEY_STATE_VALID, HCA_ACCESS_LOCAL_WRITE, 0x40000000ull,
                4u << 21, 21, 20, 4),
        demo_mr(4, 0x01, HCA_MKEY_KIND_DMA, HCA_MKEY_STATE_VALID, HCA_ACCESS_LOCAL_WRITE, 0, 0, 12, 0, 0),
    };
    const uint32_t idx[] = {1, 2, 3, 4};
    for (unsigned i = 0; i < sizeof mrs / sizeof mrs[0] && !rc; i++)
        rc = xu_write_mpt(xu, idx[i], &mrs[i]);
    for (uint32_t p = 0; p < 4 && !rc; p++) { /* MR 1 pages, deliberately not contiguous */
        hca_mtt_entry_t m = {0};
        hca_mtt_entry_set_present(&m, 1);
        hca_mtt_entry_set_pfn(&m, 0x12340 + 7 * p);
        rc = xu_write_mtt(xu, p, &m);
    }
    for (uint32_t p = 0; p < 4 && !rc; p++) { /* MR 3 pages: 2 MiB each */
        hca_mtt_entry_t m = {0};
        hca_mtt_entry_set_present(&m, 1);
        hca_mtt_entry_set_pfn(&m, (0x200000000ull + ((uint64_t)p << 21)) >> 12);
        rc = xu_write_mtt(xu, 20 + p, &m);
    }
    if (rc) {
        fprintf(stderr, "hcasim: table setup failed: %s\n", strerror(-rc));
        xu_destroy(xu);
        return 2;
    }
    const uint32_t K1 = mrs[0].key, K2 = mrs[1].key, K3 = mrs[2].key, K4 = mrs[3].key;
    const uint64_t V1 = mrs[0].iova;
    demo_case_t cases[] = {
        {"MR1 local read inside page 0", {0, 0, 0, K1, DEMO_PD, 256, V1 + 16}, HCA_XLATE_STATUS_OK},
        {"MR1 write across all 4 pages", {1, HCA_ACCESS_LOCAL_WRITE, 0, K1, DEMO_PD, 0x3800, V1}, HCA_XLATE_STATUS_OK},
        {"MR1 remote read, page seam", {2, HCA_ACCESS_REMOTE_READ, 1, K1, DEMO_PD, 0x100, V1 + 0x780}, HCA_XLATE_STATUS_OK},
        {"MR1 stale key byte", {3, 0, 0, K1 ^ 0x01, DEMO_PD, 64, V1}, HCA_XLATE_STATUS_ERR_KEY},
        {"MR1 from another PD", {4, 0, 0, K1, DEMO_OTHER_PD, 64, V1}, HCA_XLATE_STATUS_ERR_PD},
        {"MR1 one byte past the end", {5, 0, 0, K1, DEMO_PD, 2, V1 + 0x37ff}, HCA_XLATE_STATUS_ERR_BOUNDS},
        {"MR2 fast-reg, still FREE", {6, 0, 0, K2, DEMO_PD, 8, 0}, HCA_XLATE_STATUS_ERR_STATE},
        {"MR3 remote write, local-only MR", {7, HCA_ACCESS_REMOTE_WRITE, 1, K3, DEMO_PD, 8, 0x40000000ull},
         HCA_XLATE_STATUS_ERR_KEY},
        {"MR3 write across a 2 MiB seam", {8, HCA_ACCESS_LOCAL_WRITE, 0, K3, DEMO_PD, 0x2000, 0x401ff000ull},
         HCA_XLATE_STATUS_OK},
        {"MR4 DMA MR, bus address", {9, HCA_ACCESS_LOCAL_WRITE, 0, K4, DEMO_PD, 4096, 0xfee00000ull},
         HCA_XLATE_STATUS_OK},
        {"reserved L_Key, any PD", {10, HCA_ACCESS_LOCAL_WRITE, 0, HCA_RESERVED_LKEY, 99, 100, 0x1000},
         HCA_XLATE_STATUS_OK},
        {"reserved L_Key used remotely", {11, HCA_ACCESS_REMOTE_READ, 1, HCA_RESERVED_LKEY, 99, 100, 0x1000},
         HCA_XLATE_STATUS_ERR_KEY},
        {"unallocated slot 77", {12, 0, 0, (77u << 8) | 1, DEMO_PD, 8, 0}, HCA_XLATE_STATUS_ERR_SLOT},
        {"zero length on MR1", {13, 0, 0, K1, DEMO_PD, 0, V1}, HCA_XLATE_STATUS_OK},
    };
    const unsigned n = sizeof cases / sizeof cases[0];
    printf("hcasim xlate-demo: engine %s, MPT %u entries, MTT %u entries, latency %u cycles\n\n",
           xu_engine_name(xu), HCA_MPT_ENTRIES_DEFAULT, HCA_MTT_ENTRIES_DEFAULT, HCA_XU_LATENCY);
    unsigned failed = 0;
    for (unsigned i = 0; i < n; i++) {
        /* One at a time so each latency is the uncontended one. */
        const xu_req_t *q = &cases[i].req;
        uint64_t first_accept_idx = i;
        char rights[64];
        format_rights(rights, sizeof rights, q->rights);
        printf("req %-2u %-34s key %08" PRIx32 " pd %-2" PRIu32 " va %016" PRIx64 " len %-6" PRIu32 " %s%s\n",
               q->tag, cases[i].what, q->key, q->pd, q->va, q->len, rights, q->remote ? " remote" : "");
        if (xu_submit(xu, q)) {
            fprintf(stderr, "hcasim: submit failed\n");
            xu_destroy(xu);
            return 2;
        }
        xu_seg_t s;
        unsigned last_status = 0;
        for (int guard = 0; guard < 1000; guard++) {
            xu_step(xu, 1);
            int got = 0;
            while (xu_collect(xu, &s)) {
                got = 1;
                printf("       -> %-10s pa %016" PRIx64 " len %-6" PRIu32 "%s  (cycle +%" PRIu64 ")\n",
                       xu_status_name(s.status), s.pa, s.len, s.last ? " last" : "",
                       s.cycle - xu_accept_cycle(xu, first_accept_idx));
                last_status = s.status;
                if (s.last)
                    break;
            }
            if (got && s.last)
                break;
        }
        if (last_status != cases[i].expect) {
            printf("       !! expected %s\n", xu_status_name(cases[i].expect));
            failed++;
        }
    }
    /* Invalidate MR1 and show that its key now fails. */
    printf("\nINVALIDATE MPT[1] through the firmware port (invalidate-and-fence)\n");
    uint64_t c0 = xu_cycle(xu);
    rc = xu_invalidate(xu, 1);
    printf("       fence acknowledged after %" PRIu64 " cycles\n", xu_cycle(xu) - c0);
    xu_req_t after = {14, 0, 0, K1, DEMO_PD, 64, V1};
    xu_submit(xu, &after);
    xu_seg_t s = {0};
    for (int guard = 0; guard < 1000 && !xu_collect(xu, &s); guard++)
        xu_step(xu, 1);
    printf("req 14 %-34s -> %s\n", "MR1 after invalidation", xu_status_name(s.status));
    if (rc || s.status != HCA_XLATE_STATUS_ERR_STATE)
        failed++;
    uint64_t cycles = xu_cycle(xu);
    xu_trace_close(xu);
    xu_destroy(xu);
    printf("\n%u requests, %u unexpected results, %" PRIu64 " cycles\n", n + 1, failed, cycles);
    return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ demo */

/* Submit one request to the device's translation unit and print its beats. */
static unsigned demo_translate(hca_dev_t *dev, uint64_t *accepted, const char *what, uint32_t key, uint32_t pd,
                               uint64_t va, uint32_t len, unsigned rights)
{
    xu_req_t q = {(uint8_t)*accepted, (uint8_t)rights, 0, key, pd, len, va};
    printf("  xlate %-28s key %08" PRIx32 " va %016" PRIx64 " len %" PRIu32 "\n", what, key, va, len);
    hca_dev_xlate_submit(dev, &q);
    xu_seg_t s;
    unsigned last = HCA_XLATE_STATUS_OK;
    for (int guard = 0; guard < 100000; guard++) {
        hca_dev_step(dev, 1);
        int done = 0;
        while (hca_dev_xlate_collect(dev, &s)) {
            printf("      -> %-10s pa %016" PRIx64 " len %-6" PRIu32 "%s  (+%" PRIu64 " cycles)\n",
                   xu_status_name(s.status), s.pa, s.len, s.last ? " last" : "",
                   s.cycle - hca_dev_xlate_accept_cycle(dev, *accepted));
            last = s.status;
            done = s.last;
        }
        if (done)
            break;
    }
    (*accepted)++;
    return last;
}

/* One mailbox command's cost, from the firmware's counters. */
static void demo_cost(hca_dev_t *dev, hcadrv_t *drv, uint64_t instret0, int rc)
{
    printf("      %s, %" PRIu64 " cycles post to answer, %" PRIu64 " firmware instructions\n",
           rc ? strerror(-rc) : "ok", hcadrv_last_cmd_cycles(drv), hca_dev_fw_instret(dev) - instret0);
}

static int cmd_demo(const cli_opts_t *o)
{
    hostmem_t *mem = NULL;
    hca_dev_t *dev = NULL;
    hcadrv_t *drv = NULL;
    char err[512] = "";
    hca_dev_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.engine = o->engine;
    cfg.firmware = o->firmware;
    int rc = hostmem_create(&mem);
    if (!rc && (rc = hca_dev_create(&dev, &cfg, mem, err, sizeof err)))
        fprintf(stderr, "hcasim: cannot start the device: %s\n", err[0] ? err : strerror(-rc));
    hca_host_t host = dev ? hca_dev_host(dev) : (hca_host_t){0};
    if (!rc && (rc = hcadrv_open(&drv, &host)))
        fprintf(stderr, "hcasim: driver: %s\n", strerror(-rc));
    if (!rc && o->trace && (rc = hca_dev_trace_open(dev, o->trace, o->trace_from, o->trace_to)))
        fprintf(stderr, "hcasim: --trace %s: %s\n", o->trace, strerror(-rc));
    if (rc) {
        hcadrv_close(drv);
        hca_dev_destroy(dev);
        hostmem_destroy(mem);
        return 2;
    }
    unsigned bad = 0;
    uint64_t accepted = 0, n0;
    printf("hcasim demo: engine %s, firmware %s\n\n", dev_engine_name(o->engine),
           o->firmware ? o->firmware : hca_dev_default_firmware());

    hcadrv_device_attr_t a;
    n0 = hca_dev_fw_instret(dev);
    rc = hcadrv_query_device(drv, &a);
    printf("QUERY_DEVICE (waits for the firmware to finish booting)\n");
    demo_cost(dev, drv, n0, rc);
    bad += rc != 0;
    if (!rc)
        printf("      fw %u.%u  max_mr %u  max_mtt %u  max_pd %u  reserved_lkey %08x  "
               "max_fast_reg_page_list_len %u  page sizes 2^%d..2^%d\n"
               "      mem_mgt_extensions %d  read_with_inv %d  indir_reg %d  peer_memory %d\n",
               a.fw_version >> 16, a.fw_version & 0xffff, a.max_mr, a.max_mtt, a.max_pd, a.reserved_lkey,
               a.max_fast_reg_page_list_len, __builtin_ctz(a.page_shifts), 31 - __builtin_clz(a.page_shifts),
               a.mem_mgt_extensions, a.read_with_inv, a.indir_reg, a.peer_memory);

    uint32_t pd = 0;
    n0 = hca_dev_fw_instret(dev);
    rc = hcadrv_alloc_pd(drv, &pd);
    printf("ALLOC_PD -> pd %u\n", pd);
    demo_cost(dev, drv, n0, rc);
    bad += rc != 0;

    uint64_t buf = 0;
    hostmem_alloc(mem, 4 * 4096, 4096, &buf);
    const uint64_t iova = 0x7f5500000000ull + 0x200, len = 3 * 4096 - 0x200;
    hcadrv_mr_t mr;
    memset(&mr, 0, sizeof mr);
    n0 = hca_dev_fw_instret(dev);
    rc = hcadrv_reg_mr(drv, pd, buf + 0x200, len, iova, HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_READ, 12, &mr);
    printf("CREATE_MKEY regular: %" PRIu64 " bytes of host memory at %016" PRIx64 " as iova %016" PRIx64
           " -> lkey %08x rkey %08x\n", len, buf + 0x200, iova, mr.lkey, mr.rkey);
    demo_cost(dev, drv, n0, rc);
    bad += rc != 0;
    bad += demo_translate(dev, &accepted, "write, whole MR", mr.lkey, pd, iova, (uint32_t)len,
                          HCA_ACCESS_LOCAL_WRITE) != HCA_XLATE_STATUS_OK;
    bad += demo_translate(dev, &accepted, "from another PD", mr.lkey, pd + 1, iova, 64, 0) !=
           HCA_XLATE_STATUS_ERR_PD;

    hcadrv_mr_t f;
    memset(&f, 0, sizeof f);
    n0 = hca_dev_fw_instret(dev);
    rc = hcadrv_alloc_mr(drv, pd, HCA_MKEY_KIND_FAST_REG, 16, &f);
    printf("CREATE_MKEY fast_reg, max_page_list_len 16 -> key %08x (FREE until a FAST_REG_MR)\n", f.lkey);
    demo_cost(dev, drv, n0, rc);
    bad += rc != 0;
    bad += demo_translate(dev, &accepted, "fast-reg MR, still FREE", f.lkey, pd, 0, 64, 0) !=
           HCA_XLATE_STATUS_ERR_STATE;

    n0 = hca_dev_fw_instret(dev);
    rc = hcadrv_dereg_mr(drv, &mr);
    printf("DESTROY_MKEY %08x (invalidate-and-fence, then free the slot)\n", mr.lkey);
    demo_cost(dev, drv, n0, rc);
    bad += rc != 0;
    bad += demo_translate(dev, &accepted, "stale key after destroy", mr.lkey, pd, iova, 64, 0) !=
           HCA_XLATE_STATUS_ERR_SLOT;
    bad += demo_translate(dev, &accepted, "reserved L_Key, bus address", HCA_RESERVED_LKEY, 77, buf, 4096,
                          HCA_ACCESS_LOCAL_WRITE) != HCA_XLATE_STATUS_OK;

    char why[256] = "";
    if (hca_dev_fw_health(dev, why, sizeof why)) {
        printf("firmware stopped: %s\n", why);
        bad++;
    }
    printf("\nfirmware console:\n");
    for (const char *p = hca_dev_console(dev); *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        printf("  | %.*s\n", n, p);
        p += n + (nl != NULL);
    }
    printf("\n%" PRIu64 " device cycles, %" PRIu64 " firmware instructions (%" PRIu64 " busy core cycles); %s\n",
           hca_dev_cycle(dev), hca_dev_fw_instret(dev), hca_dev_fw_busy_cycles(dev),
           bad ? "UNEXPECTED RESULTS" : "every result as expected");
    hca_dev_trace_close(dev);
    hcadrv_close(drv);
    hca_dev_destroy(dev);
    hostmem_destroy(mem);
    return bad ? 1 : 0;
}

/* ------------------------------------------------------------------ run */

static int cmd_run(int argc, char **argv)
{
    scn_run_opts_t o;
    memset(&o, 0, sizeof o);
    const char *file = NULL;
    int validate_only = 0;
    char err[1024];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            run_usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--validate")) {
            validate_only = 1;
            continue;
        }
        if (a[0] != '-' && !file) {
            file = a;
            continue;
        }
        const int t = scn_parse_run_option(argc, argv, &i, &o, err, sizeof err);
        if (t < 0) {
            fprintf(stderr, "hcasim run: %s\n", err);
            return 2;
        }
        if (!t) {
            fprintf(stderr, "hcasim run: unexpected argument '%s'%s\n", a,
                    a[0] == '-' && i + 1 >= argc ? " (missing value?)" : "");
            return 2;
        }
    }
    if (!file) {
        run_usage(stderr);
        return 2;
    }
    scn_t *s = NULL;
    if (scn_check_opts(&o, err, sizeof err)) { /* before the file is even read */
        fprintf(stderr, "hcasim run: command line: %s\n", err);
        if (o.json_out && strncmp(err, "--json ", 7)) /* the JSON result is written in every case it can be */
            scn_write_load_error_json(o.json_out, file, err, o.engine);
        return 2;
    }
    if (scn_load(file, &s, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        if (o.json_out)
            scn_write_load_error_json(o.json_out, file, err, o.engine);
        return 2;
    }
    if (validate_only) {
        printf("VALID %s: %zu ops\n", file, scn_op_count(s));
        scn_free(s);
        return 0;
    }
    int rc = scn_run(s, &o);
    scn_free(s);
    return rc;
}

/* hcasim regress: the regression flow is Python (sim/runner/regress.py); it is
 * found like the firmware image, beside the executable first
 * (<exe dir>/../share/hcasim/, where the build and an install put it), and
 * told which hcasim to run (HCASIM_BIN), so a moved tree stays consistent. */
static int cmd_regress(int argc, char **argv)
{
    char exe[4096], path[4096 + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        setenv("HCASIM_BIN", exe, 1);
    }
    scn_share_path(path, sizeof path, "regress.py", HCASIM_REGRESS_DEFAULT);
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args)
        return 2;
    args[0] = "python3";
    args[1] = path;
    for (int i = 2; i < argc; i++)
        args[i] = argv[i];
    execvp(args[0], args);
    fprintf(stderr, "hcasim regress: cannot run python3 %s: %s\n", path, strerror(errno));
    free(args);
    return 2;
}

static void serve_usage(FILE *f)
{
    fputs("usage: hcasim serve --socket PATH [--engine rtl|model] [--firmware ELF] [--clients N]\n"
          "\n"
          "Serve the device over a Unix socket (protocol: docs/cosim.md, sim/cosim/hca_wire.h):\n"
          "BAR0 reads and writes, waits and the clock for the client; the device's DMA into\n"
          "the client's memory; the interrupt line's level. One client at a time, each on a\n"
          "freshly booted device dropped when it disconnects. A C client: sim/cosim/hca_client.h.\n"
          "\n"
          "  --socket PATH        where to listen (a stale socket there is replaced)\n"
          "  --engine rtl|model   the device's engine (default rtl)\n"
          "  --firmware ELF       firmware image (default: the one make builds)\n"
          "  --clients N          serve N connections, then exit 0 (default: until SIGTERM)\n",
          f);
}

static int cmd_serve(int argc, char **argv)
{
    hca_serve_opts_t o;
    memset(&o, 0, sizeof o);
    o.log = stdout;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t n;
        if (is_help(a)) {
            serve_usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "hcasim serve: unexpected argument '%s'%s\n", a, a[0] == '-' ? " (missing value?)" : "");
            return 2;
        }
        i++;
        if (!strcmp(a, "--socket"))
            o.path = v;
        else if (!strcmp(a, "--firmware"))
            o.cfg.firmware = v;
        else if (!strcmp(a, "--engine")) {
            if (!strcmp(v, "rtl"))
                o.cfg.engine = DEV_ENGINE_RTL;
            else if (!strcmp(v, "model"))
                o.cfg.engine = DEV_ENGINE_MODEL;
            else {
                fprintf(stderr, "hcasim serve: --engine %s: expected rtl or model\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--clients")) {
            if (scn_parse_u64(v, &n) || n == 0 || n > UINT32_MAX) {
                fprintf(stderr, "hcasim serve: --clients %s: expected a positive number\n", v);
                return 2;
            }
            o.clients = (unsigned)n;
        } else {
            fprintf(stderr, "hcasim serve: unexpected argument '%s'\n", a);
            return 2;
        }
    }
    if (!o.path) {
        serve_usage(stderr);
        return 2;
    }
    if (o.cfg.firmware) { /* refused now, not at the first client */
        FILE *t = fopen(o.cfg.firmware, "rb");
        if (!t) {
            fprintf(stderr, "hcasim serve: --firmware %s: %s\n", o.cfg.firmware, strerror(errno));
            return 2;
        }
        fclose(t);
    }
    return hca_serve(&o) ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    cli_opts_t o;
    if (!strcmp(argv[1], "demo")) {
        int rc = parse_opts(argc, argv, 2, &o);
        return rc < 0 ? 0 : rc ? rc : cmd_demo(&o);
    }
    if (!strcmp(argv[1], "xlate-demo")) {
        int rc = parse_opts(argc, argv, 2, &o);
        return rc < 0 ? 0 : rc ? rc : cmd_xlate_demo(&o);
    }
    if (!strcmp(argv[1], "run"))
        return cmd_run(argc, argv);
    if (!strcmp(argv[1], "regress"))
        return cmd_regress(argc, argv);
    if (!strcmp(argv[1], "serve"))
        return cmd_serve(argc, argv);
    fprintf(stderr, "hcasim: unknown command '%s' (try 'hcasim help')\n", argv[1]);
    return 2;
}
