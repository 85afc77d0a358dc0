/* scn_result.c — what a run reports (docs/scenarios.md "Running"): the text
 * result (the reason, the firmware's diagnosis, the checker and summary
 * lines), the JSON result and the --fw-profile file. They are written from
 * what scn_run.c gathered; nothing here reaches the device. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "elf_syms.h"
#include "scn_int.h"

const char *scn_engine_name(scn_engine_t e)
{
    return e == SCN_ENGINE_BOTH ? "both" : dev_engine_name((dev_engine_kind_t)e);
}

const char *scn_result_name(int rc)
{
    return rc == SCN_PASS ? "PASS" : rc == SCN_FAIL ? "FAIL" : "ERROR";
}

void scn_print_fw(FILE *out, const scn_fw_state_t *fw, const char *whose)
{
    const char *con = fw->console;
    size_t n = con ? strlen(con) : 0, from = n > 4000 ? n - 4000 : 0;
    while (from > 0 && con[from - 1] != '\n')
        from++;
    fprintf(out, "firmware%s: %" PRIu64 " instructions retired, busy %" PRIu64 " of %" PRIu64 " cycles; console (%s):\n",
            whose, fw->instret, fw->busy, fw->cycles, from ? "its last lines" : "all of it");
    for (const char *p = con + from; p && *p;) {
        const char *e = strchr(p, '\n');
        int len = e ? (int)(e - p) : (int)strlen(p);
        fprintf(out, "  fw| %.*s\n", len, p);
        p = e ? e + 1 : p + len;
    }
}

void scn_print_checker(FILE *out, const char *prefix, const scn_checker_t *ck)
{
    fprintf(out,
            "%s%" PRIu64 " engine DMAs watched (%" PRIu64 " through a key), %" PRIu64 " key invalidations and %" PRIu64
            " registrations followed, %" PRIu64 " WRITE packets, %" PRIu64 " breaches; %" PRIu64 " fence waits, %" PRIu64
            " drain waits, %" PRIu64 " refused after an invalidation\n",
            prefix, ck->dma, ck->dma_keyed, ck->invalidations, ck->registrations, ck->write_pkts, ck->breaches,
            ck->fence_waits, ck->drain_waits, ck->refused_after_inv);
}

void scn_print_report(const scn_report_t *r, FILE *out, FILE *err)
{
    fflush(out); /* the reason comes before the summary, also when both go to one pipe */
    if (r->result) {
        if (r->cmdline)
            fprintf(err, "hcasim run: command line: %s\n", r->msg);
        else
            fprintf(err, "%s:%u: %s\n", r->file, r->line, r->msg);
        fflush(err);
    }
    if (r->fw)
        scn_print_fw(out, r->fw, "");
    if (r->checker) /* what the protection checker watched: a pass means as much as this */
        scn_print_checker(out, "checker: ", r->checker);
    fprintf(out, "%s %s: %zu ops, %" PRIu64 " cycles, engine %s, seed %" PRIu64 "%s\n", scn_result_name(r->result),
            r->file, scn_op_count(r->s), r->cycles, scn_engine_name(r->engine), r->seed,
            r->result == SCN_PASS ? "" : r->result == SCN_FAIL ? " (stopped at the first mismatch)" : "");
}

void scn_json_failure(FILE *f, int result, unsigned line, const char *op, const char *msg)
{
    if (result == SCN_PASS) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"line\":%u,\"op\":", line);
    if (op)
        json_write_string(f, op, strlen(op));
    else
        fputs("null", f);
    fputs(",\"message\":", f);
    json_write_string(f, msg, strlen(msg));
    fputc('}', f);
}

void scn_json_checker(FILE *f, const scn_checker_t *ck)
{
    if (ck)
        fprintf(f,
                "{\"dma\":%" PRIu64 ",\"dma_keyed\":%" PRIu64 ",\"invalidations\":%" PRIu64 ",\"registrations\":%" PRIu64
                ",\"write_pkts\":%" PRIu64 ",\"breaches\":%" PRIu64 ",\"fence_waits\":%" PRIu64
                ",\"drain_waits\":%" PRIu64 ",\"refused_after_inv\":%" PRIu64 "}",
                ck->dma, ck->dma_keyed, ck->invalidations, ck->registrations, ck->write_pkts, ck->breaches,
                ck->fence_waits, ck->drain_waits, ck->refused_after_inv);
    else
        fputs("null", f);
}

/* A cycle, or null when the breach has none. */
static void json_cycle(FILE *f, const char *name, uint64_t c)
{
    if (c == PROTCHECK_NONE)
        fprintf(f, ",\"%s\":null", name);
    else
        fprintf(f, ",\"%s\":%" PRIu64, name, c);
}

/* Breaches listed in the JSON result (the count is the checker's). */
#define JSON_BREACHES 16

void scn_json_breaches(FILE *f, const protcheck_t *pc)
{
    fputc('[', f);
    protcheck_violation_t v;
    for (size_t i = 0; pc && i < JSON_BREACHES && !protcheck_get(pc, i, &v); i++) {
        fprintf(f, "%s{\"cycle\":%" PRIu64 ",\"key\":%" PRIu32 ",\"addr\":%" PRIu64 ",\"qpn\":%" PRIu32, i ? "," : "",
                v.cycle, v.key, v.addr, v.qpn);
        json_cycle(f, "issue_cycle", v.issue_cycle);
        json_cycle(f, "inval_req_cycle", v.inval_req_cycle);
        json_cycle(f, "inval_cycle", v.inval_cycle);
        json_cycle(f, "land_cycle", v.land_cycle);
        fputs(",\"reason\":", f);
        json_write_string(f, v.reason, strlen(v.reason));
        fputc('}', f);
    }
    fputc(']', f);
}

void scn_json_timing(FILE *f, const scn_report_t *r)
{
    if (!r->checker) {
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"host_read_latency\":%u,\"host_write_cost\":%u,\"host_bytes_per_cycle\":%u,\"link_latency\":%u,"
            "\"link_bytes_per_cycle\":%u}",
            r->host.read_latency, r->host.write_cost, r->host.bytes_per_cycle, r->link_latency, r->link_bytes_per_cycle);
}

void scn_json_wrs(FILE *f, const scn_report_t *r)
{
    fputc('[', f);
    for (size_t i = 0; i < r->nwrs; i++) {
        const wr_rec_t *w = &r->wrs[i];
        const char *qp = r->s->syms[w->qp].name;
        fprintf(f, "%s{\"line\":%u,\"qp\":", i ? "," : "", w->line);
        json_write_string(f, qp, strlen(qp));
        fprintf(f, ",\"wr_id\":%" PRIu64 ",\"opcode\":\"%s\",\"post_cycle\":%" PRIu64 ",\"completion_cycle\":", w->wr_id,
                w->opcode, w->post_cycle);
        if (w->done)
            fprintf(f, "%" PRIu64 ",\"status\":\"%s\"}", w->completion_cycle,
                    hca_wc_status_name(w->status) ? hca_wc_status_name(w->status) : "?");
        else
            fputs("null,\"status\":null}", f);
    }
    fputc(']', f);
}

int scn_write_json(const char *path, const scn_report_t *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fputs("{\"file\":", f);
    json_write_string(f, r->file, strlen(r->file));
    fprintf(f, ",\"engine\":\"%s\",\"seed\":%" PRIu64 ",\"cycles\":%" PRIu64 ",\"result\":\"%s\",\"failure\":",
            scn_engine_name(r->engine), r->seed, r->cycles,
            r->result == SCN_PASS ? "pass" : r->result == SCN_FAIL ? "fail" : "error");
    scn_json_failure(f, r->result, r->line, r->op, r->msg);
    fputs(",\"firmware\":", f);
    if (r->firmware)
        json_write_string(f, r->firmware, strlen(r->firmware));
    else
        fputs("null", f);
    fputs(",\"checker\":", f);
    scn_json_checker(f, r->checker);
    fputs(",\"timing\":", f);
    scn_json_timing(f, r);
    fputs(",\"breaches\":", f);
    scn_json_breaches(f, r->pc);
    fputs(",\"coverage\":", f);
    scn_cover_json(f, r->cov);
    fputs(",\"peer_stats\":{", f);
    for (size_t i = 0; i < r->npeers; i++) {
        const hcadrv_peer_stats_t *st = &r->peers[i].st;
        fputs(i ? "," : "", f);
        json_write_string(f, r->peers[i].name, strlen(r->peers[i].name));
        fprintf(f,
                ":{\"num_alloc_mrs\":%" PRIu64 ",\"num_dealloc_mrs\":%" PRIu64 ",\"num_reg_pages\":%" PRIu64
                ",\"num_dereg_pages\":%" PRIu64 ",\"num_reg_bytes\":%" PRIu64 ",\"num_dereg_bytes\":%" PRIu64
                ",\"num_free_callbacks\":%" PRIu64 "}",
                st->num_alloc_mrs, st->num_dealloc_mrs, st->num_reg_pages, st->num_dereg_pages, st->num_reg_bytes,
                st->num_dereg_bytes, st->num_free_callbacks);
    }
    fputs("}", f);
    fputs(",\"wrs\":", f);
    if (r->s)
        scn_json_wrs(f, r);
    else
        fputs("[]", f);
    fputs("}\n", f);
    int bad = ferror(f);
    return fclose(f) || bad ? -EIO : 0;
}

int scn_write_load_error_json(const char *json_out, const char *file, const char *msg, scn_engine_t engine)
{
    unsigned line = 0;
    size_t fl = strlen(file);
    if (!strncmp(msg, file, fl) && msg[fl] == ':')
        line = (unsigned)strtoul(msg + fl + 1, NULL, 10);
    scn_report_t r = {NULL, file, engine, 0, 0, SCN_ERROR, line, NULL, msg, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, NULL, NULL, {0, 0, 0}, 0, 0};
    return scn_write_json(json_out, &r);
}

int scn_write_fw_profile(const char *path, const char *firmware, const uint64_t *h, size_t words)
{
    size_t nf = 0;
    elf_func_t *f = NULL;
    int rc = elf_read_functions(firmware, &f, &nf);
    FILE *out = rc ? NULL : fopen(path, "w");
    if (rc || !out) {
        free(f);
        return rc ? rc : -errno;
    }
    uint64_t *per = calloc(nf + 1, sizeof *per), total = 0; /* per[nf]: outside every function */
    for (size_t w = 0; per && w < words; w++) {
        if (!h[w])
            continue;
        const elf_func_t *fn = elf_func_at(f, nf, HCA_FW_RAM_BASE + 4 * (uint32_t)w);
        per[fn ? (size_t)(fn - f) : nf] += h[w];
        total += h[w];
    }
    fprintf(out, "# firmware busy cycles per function (%s), %" PRIu64 " cycles sampled\n", firmware, total);
    for (;;) { /* selection by the largest left: the list is short */
        size_t best = nf + 1;
        for (size_t i = 0; per && i <= nf; i++)
            if (per[i] && (best > nf || per[i] > per[best]))
                best = i;
        if (best > nf)
            break;
        fprintf(out, "%12" PRIu64 " %6.2f%%  %s\n", per[best], 100.0 * (double)per[best] / (double)total,
                best < nf ? f[best].name : "(outside any function)");
        per[best] = 0;
    }
    rc = per ? 0 : -ENOMEM;
    free(per);
    free(f);
    return fclose(out) || rc ? (rc ? rc : -EIO) : 0;
}

/* One file per counter, as the seed's sysfs tree (memory_peers/<name>/). */
static int write_counter(const char *dir, const char *name, const char *fmt, uint64_t v, const char *sv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    if (sv)
        fprintf(f, "%s\n", sv);
    else
        fprintf(f, fmt, v);
    return fclose(f) ? -EIO : 0;
}

static int make_dir(const char *path)
{
    return mkdir(path, 0777) && errno != EEXIST ? -errno : 0;
}

int scn_write_peer_stats(const char *dir, const scn_report_t *r)
{
    char path[4096];
    int rc = make_dir(dir);
    snprintf(path, sizeof path, "%s/memory_peers", dir);
    if (!rc)
        rc = make_dir(path);
    for (size_t i = 0; !rc && i < r->npeers; i++) {
        const hcadrv_peer_stats_t *st = &r->peers[i].st;
        snprintf(path, sizeof path, "%s/memory_peers/%s", dir, r->peers[i].name);
        const struct {
            const char *name;
            uint64_t v;
        } c[] = {{"num_alloc_mrs", st->num_alloc_mrs},     {"num_dealloc_mrs", st->num_dealloc_mrs},
                 {"num_reg_pages", st->num_reg_pages},     {"num_dereg_pages", st->num_dereg_pages},
                 {"num_reg_bytes", st->num_reg_bytes},     {"num_dereg_bytes", st->num_dereg_bytes},
                 {"num_free_callbacks", st->num_free_callbacks}};
        rc = make_dir(path);
        if (!rc)
            rc = write_counter(path, "version", NULL, 0, r->peers[i].version);
        for (size_t k = 0; !rc && k < sizeof c / sizeof c[0]; k++)
            rc = write_counter(path, c[k].name, "%" PRIu64 "\n", c[k].v, NULL);
    }
    return rc;
}
