/* scenario_ops.c — one handler per scenario op (SCENARIO.md "Ops").
 *
 * Each handler reads its fields first (both passes), returns when validating
 * (c->run == NULL), then acts on the device. See scenario_int.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"

/** Longest SGE list a scenario may write (the driver refuses more than it serves). */
#define SCN_MAX_SGES 16u
#define RUNNING (c->run != NULL)

/* A failed device call whose cause is an engine that lacks the feature. */
static int device_refused(ctx_t *c, int rc, const char *what)
{
    if (rc == -EOPNOTSUPP) {
        if (scn_engine_is_model(c))
            return scn_unavailable(c, NULL, NULL);
        return scn_bad(c, "not available yet: the device answered EOPNOTSUPP%s%s", what ? " to " : "",
                       what ? what : "");
    }
    return scn_mismatch(c, "expected %s to succeed, got %s (%s)", what ? what : "the call", scn_errno_name(rc),
                        strerror(-rc));
}

static int expect_rc(ctx_t *c, int rc, int want, const char *what)
{
    if (rc == want)
        return 0;
    if (rc == -EOPNOTSUPP && want != -EOPNOTSUPP && scn_engine_is_model(c))
        return scn_unavailable(c, NULL, NULL);
    return scn_mismatch(c, "expected %s to return %s, got %s", what, scn_errno_name(want), scn_errno_name(rc));
}

static void push_path(ctx_t *c, const char *k, size_t idx, int indexed, char *saved)
{
    strcpy(saved, c->path);
    size_t l = strlen(c->path);
    if (indexed)
        snprintf(c->path + l, sizeof c->path - l, "%s[%zu].", k, idx);
    else
        snprintf(c->path + l, sizeof c->path - l, "%s.", k);
}

static void pop_path(ctx_t *c, const char *saved)
{
    strcpy(c->path, saved);
}

static int need_object(ctx_t *c, const json_value_t *v, const char *k)
{
    if (v->type != JSON_OBJECT)
        return scn_bad_field(c, k, "expected an object, got a %s", json_type_name(v->type));
    return 0;
}

static int need_array(ctx_t *c, const json_value_t *v, const char *k, size_t min, size_t max)
{
    if (v->type != JSON_ARRAY)
        return scn_bad_field(c, k, "expected a list, got a %s", json_type_name(v->type));
    if (v->u.array.n < min || v->u.array.n > max)
        return scn_bad_field(c, k, "%zu entries, expected %zu..%zu", v->u.array.n, min, max);
    return 0;
}

/* The MR's key as the driver holds it; an MR whose creation failed has none. */
static int mr_key(ctx_t *c, int id, const char *k, uint32_t *key)
{
    rt_obj_t *m = scn_obj(c, id);
    if (!m->live)
        return scn_bad_field(c, k, "mr \"%s\" holds no key (its creation on line %u did not succeed)",
                             scn_sym(c, id)->name, scn_sym(c, id)->line);
    *key = m->mr.lkey;
    return 0;
}

/* Key reference: {"mr":"f0"}, {"mr":"f0","key":17}, or a raw integer. */
static int keyref_value(ctx_t *c, const json_value_t *v, const char *k, uint32_t *out)
{
    if (v->type != JSON_OBJECT) {
        if (v->type != JSON_INT && v->type != JSON_STRING && v->type != JSON_NUMBER)
            return scn_bad_field(c, k, "expected a key: {\"mr\":NAME}, {\"mr\":NAME,\"key\":BYTE} or an integer, "
                                       "got a %s",
                                 json_type_name(v->type));
        uint64_t x = 0;
        int rc = scn_int_value(c, v, k, 0, UINT32_MAX, &x);
        *out = (uint32_t)x;
        return rc;
    }
    char saved[sizeof c->path];
    push_path(c, k, 0, 0, saved);
    int id = -1, rc = scn_fields_known(c, v, "mr key");
    uint64_t byte = 0;
    int has_byte = json_get(v, "key") != NULL;
    if (!rc)
        rc = scn_ref(c, v, "mr", 1, SYM_MR, &id);
    if (!rc)
        rc = scn_int(c, v, "key", 0, 0, 0xff, &byte);
    pop_path(c, saved);
    if (rc || !RUNNING)
        return rc;
    uint32_t key;
    if ((rc = mr_key(c, id, k, &key)))
        return rc;
    *out = has_byte ? (key & ~(uint32_t)HCA_KEY_BYTE_MASK) | (uint32_t)byte : key;
    return 0;
}

static int keyref(ctx_t *c, const json_value_t *o, const char *k, int req, uint32_t *out)
{
    const json_value_t *v = json_get(o, k);
    if (!v)
        return req ? scn_bad_field(c, k, "missing (a key reference)") : 0;
    return keyref_value(c, v, k, out);
}

/* SGE list: {"mr":M,"offset":O,"length":N[,"lkey":K]}, {"buf":B,"offset":O,"length":N,"lkey":K},
 * {"addr":A,"length":N,"lkey":K}. A missing length is the rest of the MR or buffer. The first cap
 * entries land in sge[]; *n counts them all (the driver refuses lists longer than it serves). */
static int sge_list(ctx_t *c, const json_value_t *o, const char *k, int req, hca_sge_t *sge, unsigned cap,
                    unsigned *n)
{
    const json_value_t *v = json_get(o, k);
    *n = 0;
    if (!v)
        return req ? scn_bad_field(c, k, "missing (a list of SGEs)") : 0;
    int rc = need_array(c, v, k, 0, SCN_MAX_SGES);
    if (rc)
        return rc;
    for (size_t i = 0; i < v->u.array.n && !rc; i++) {
        const json_value_t *e = v->u.array.items[i];
        char ik[48];
        snprintf(ik, sizeof ik, "%s[%zu]", k, i);
        if ((rc = need_object(c, e, ik)))
            break;
        char saved[sizeof c->path];
        push_path(c, k, i, 1, saved);
        int forms = !!json_get(e, "mr") + !!json_get(e, "buf") + !!json_get(e, "addr");
        uint64_t off = 0, len = 0, addr = 0;
        uint32_t lkey = 0;
        int id = -1, has_len = json_get(e, "length") != NULL;
        if (forms != 1) {
            pop_path(c, saved);
            return scn_bad_field(c, ik, "an SGE has exactly one of \"mr\", \"buf\" or \"addr\"");
        }
        if (json_get(e, "mr")) {
            rc = scn_fields_known(c, e, "mr offset length lkey");
            if (!rc)
                rc = scn_ref(c, e, "mr", 1, SYM_MR, &id);
        } else if (json_get(e, "buf")) {
            rc = scn_fields_known(c, e, "buf offset length lkey");
            if (!rc)
                rc = scn_ref(c, e, "buf", 1, SYM_BUF, &id);
            if (!rc && !json_get(e, "lkey"))
                rc = scn_bad_field(c, "lkey", "missing (an SGE over a buffer names its key)");
        } else {
            rc = scn_fields_known(c, e, "addr length lkey");
            if (!rc)
                rc = scn_int(c, e, "addr", 1, 0, UINT64_MAX, &addr);
            if (!rc && !has_len)
                rc = scn_bad_field(c, "length", "missing (an SGE by address has a length)");
            if (!rc && !json_get(e, "lkey"))
                rc = scn_bad_field(c, "lkey", "missing (an SGE by address names its key)");
        }
        if (!rc)
            rc = scn_int(c, e, "offset", 0, 0, UINT64_MAX, &off);
        if (!rc)
            rc = scn_int(c, e, "length", 0, 0, UINT32_MAX, &len);
        if (!rc)
            rc = keyref(c, e, "lkey", 0, &lkey);
        if (!rc && !RUNNING && json_get(e, "buf") && !has_len && off > scn_sym(c, id)->size)
            rc = scn_bad_field(c, "offset", "%" PRIu64 " is past the end of buffer \"%s\" (%" PRIu64 " bytes)", off,
                               scn_sym(c, id)->name, scn_sym(c, id)->size);
        if (!rc && RUNNING) {
            if (json_get(e, "mr")) {
                rt_obj_t *m = scn_obj(c, id);
                uint32_t key;
                if ((rc = mr_key(c, id, "mr", &key)) == 0) {
                    addr = m->mr.iova + off;
                    if (!json_get(e, "lkey"))
                        lkey = key;
                    if (!has_len)
                        len = off <= m->mr.length ? m->mr.length - off : 0;
                }
            } else if (json_get(e, "buf")) {
                rt_obj_t *b = scn_obj(c, id);
                addr = b->addr + off;
                if (!has_len)
                    len = b->size - off;
            }
            if (!rc && len > UINT32_MAX)
                rc = scn_bad_field(c, "length", "%" PRIu64 " bytes do not fit an SGE (32 bits)", len);
        }
        pop_path(c, saved);
        if (!rc && i < cap) {
            sge[i].addr = addr;
            sge[i].length = (uint32_t)len;
            sge[i].lkey = lkey;
        }
        (*n)++;
    }
    return rc;
}

/* "zero" | "random" | "pattern" | "byte:0xAB" -> kind 0..3 and the byte. */
static int fill_of(ctx_t *c, const json_value_t *o, unsigned *kind, uint8_t *byte)
{
    static const char *const names[] = {"zero", "random", "pattern", NULL};
    const char *s = NULL;
    *kind = 0;
    int rc = scn_str(c, o, "fill", 0, &s);
    if (rc || !s)
        return rc;
    if (!strncmp(s, "byte:", 5)) {
        json_value_t tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.type = JSON_STRING;
        tmp.u.string.s = s + 5;
        tmp.u.string.len = strlen(s + 5);
        uint64_t b = 0;
        if ((rc = scn_int_value(c, &tmp, "fill", 0, 0xff, &b)))
            return rc;
        *kind = 3;
        *byte = (uint8_t)b;
        return 0;
    }
    for (unsigned i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) {
            *kind = i;
            return 0;
        }
    return scn_bad_field(c, "fill", "\"%.40s\" is not one of zero, random, pattern, byte:0xNN", s);
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fill a fresh buffer; each buffer's random stream depends on the seed and its name only. */
static int fill_buffer(ctx_t *c, int id, unsigned kind, uint8_t byte)
{
    rt_obj_t *b = scn_obj(c, id);
    if (kind == 0)
        return 0; /* hostmem maps zeroed pages */
    const char *name = scn_sym(c, id)->name;
    uint64_t st = scn_seed(c);
    for (const char *p = name; *p; p++)
        st = (st ^ (unsigned char)*p) * 1099511628211ull;
    uint8_t chunk[4096];
    for (uint64_t off = 0; off < b->size; off += sizeof chunk) {
        size_t n = b->size - off < sizeof chunk ? (size_t)(b->size - off) : sizeof chunk;
        for (size_t i = 0; i < n; i++) {
            if (kind == 1) {
                if ((i & 7) == 0) {
                    uint64_t r = splitmix64(&st);
                    memcpy(chunk + i, &r, n - i < 8 ? n - i : 8);
                }
            } else
                chunk[i] = kind == 2 ? (uint8_t)(off + i) : byte;
        }
        if (hostmem_write(scn_mem(c), b->addr + off, chunk, n))
            return scn_bad(c, "host memory refused the fill");
    }
    return 0;
}

/* ================================================================ setup */

static int op_device(ctx_t *c, const json_value_t *o)
{
    static const struct {
        const char *key;
        uint64_t min, max;
        const char *feature; /* non-NULL: not available yet */
    } keys[] = {
        {"seed", 0, UINT64_MAX, NULL},
        {"mpt_entries", 2, 1u << 24, NULL},
        {"mtt_entries", 2, 1u << 24, NULL},
        {"host_read_latency", 0, 1000000, NULL},
        {"host_write_cost", 0, 1000000, NULL},
        {"host_bytes_per_cycle", 1, 4096, NULL},
        {"link_latency", 1, 1000000, NULL},
        {"link_bytes_per_cycle", 1, 4096, NULL},
        {"max_indirection", 1, 64, "indirect registration (REG_INDIR_MR)"},
        {"peer_latency", 0, 1000000, "peer memory"},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint64_t v = 0;
        if (!json_get(o, keys[i].key))
            continue;
        int rc = scn_int(c, o, keys[i].key, 0, keys[i].min, keys[i].max, &v);
        if (!rc && (!strcmp(keys[i].key, "mpt_entries") || !strcmp(keys[i].key, "mtt_entries")) && (v & (v - 1)))
            rc = scn_bad_field(c, keys[i].key, "%" PRIu64 " is not a power of two", v);
        if (rc)
            return rc;
        if (!RUNNING)
            continue;
        if (keys[i].feature)
            return scn_unavailable(c, keys[i].key, keys[i].feature);
        if (!strncmp(keys[i].key, "host_", 5)) {
            /* one host timing field set: the others keep their defaults */
            static const char *const host[] = {"host_read_latency", "host_write_cost", "host_bytes_per_cycle"};
            bus_timing_t t = bus_default_timing();
            uint64_t d[] = {t.read_latency, t.write_cost, t.bytes_per_cycle};
            for (int h = 0; h < 3; h++)
                if (!json_get(o, host[h]) && (rc = scn_device_option(c, host[h], d[h])))
                    return rc;
        }
        if (!strcmp(keys[i].key, "mpt_entries") && !json_get(o, "mtt_entries"))
            rc = scn_device_option(c, "mtt_entries", HCA_MTT_ENTRIES_DEFAULT);
        if (!strcmp(keys[i].key, "mtt_entries") && !json_get(o, "mpt_entries"))
            rc = scn_device_option(c, "mpt_entries", HCA_MPT_ENTRIES_DEFAULT);
        if (rc || (rc = scn_device_option(c, keys[i].key, v)))
            return rc;
    }
    int b = 0;
    int rc = scn_bool(c, o, "peer_invalidation", 0, &b);
    if (rc)
        return rc;
    if (RUNNING && json_get(o, "peer_invalidation"))
        return scn_unavailable(c, "peer_invalidation", "peer memory");
    return 0;
}

static int op_query_device(ctx_t *c, const json_value_t *o)
{
    const json_value_t *e = json_get(o, "expect");
    if (!e)
        return scn_bad_field(c, "expect", "missing (an object of capabilities)");
    int rc = need_object(c, e, "expect");
    if (rc)
        return rc;
    static const char *const bools[] = {"mem_mgt_extensions", "read_with_inv", "indir_reg", "peer_memory"};
    static const char *const ints[] = {"fw_version", "max_fast_reg_page_list_len", "reserved_lkey",
                                       "max_indir_reg_list_len", "max_indirection", "max_mr", "max_mtt",
                                       "max_pd", "max_reg_pages"};
    char saved[sizeof c->path];
    push_path(c, "expect", 0, 0, saved);
    rc = scn_fields_known(c, e,
                          "mem_mgt_extensions read_with_inv indir_reg peer_memory fw_version "
                          "max_fast_reg_page_list_len reserved_lkey max_indir_reg_list_len max_indirection max_mr "
                          "max_mtt max_pd max_reg_pages page_shifts");
    int bv[4] = {0};
    uint64_t iv[9] = {0};
    uint32_t shifts = 0;
    for (int i = 0; i < 4 && !rc; i++)
        rc = scn_bool(c, e, bools[i], 0, &bv[i]);
    for (int i = 0; i < 9 && !rc; i++)
        rc = scn_int(c, e, ints[i], 0, 0, UINT32_MAX, &iv[i]);
    const json_value_t *ps = json_get(e, "page_shifts");
    if (!rc && ps) {
        rc = need_array(c, ps, "page_shifts", 0, 32);
        for (size_t i = 0; !rc && i < ps->u.array.n; i++) {
            uint64_t s = 0;
            char ik[48];
            snprintf(ik, sizeof ik, "page_shifts[%zu]", i);
            rc = scn_int_value(c, ps->u.array.items[i], ik, 0, 31, &s);
            shifts |= 1u << s;
        }
    }
    pop_path(c, saved);
    if (rc || !RUNNING)
        return rc;
    hcadrv_device_attr_t a;
    if ((rc = hcadrv_query_device(scn_drv(c), &a)))
        return device_refused(c, rc, "QUERY_DEVICE");
    const int got_b[4] = {a.mem_mgt_extensions, a.read_with_inv, a.indir_reg, a.peer_memory};
    const uint64_t got_i[9] = {a.fw_version, a.max_fast_reg_page_list_len, a.reserved_lkey,
                               a.max_indir_reg_list_len, a.max_indirection, a.max_mr, a.max_mtt, a.max_pd,
                               a.max_reg_pages};
    for (int i = 0; i < 4; i++)
        if (json_get(e, bools[i]) && !!bv[i] != !!got_b[i])
            return scn_mismatch(c, "expected %s %s, got %s", bools[i], bv[i] ? "true" : "false",
                                got_b[i] ? "true" : "false");
    for (int i = 0; i < 9; i++)
        if (json_get(e, ints[i]) && iv[i] != got_i[i])
            return scn_mismatch(c, "expected %s 0x%" PRIx64 " (%" PRIu64 "), got 0x%" PRIx64 " (%" PRIu64 ")",
                                ints[i], iv[i], iv[i], got_i[i], got_i[i]);
    if (ps && shifts != a.page_shifts)
        return scn_mismatch(c, "expected page_shifts mask 0x%08x, got 0x%08x", shifts, a.page_shifts);
    scn_note(c, "caps 0x%x reserved_lkey 0x%x page_shifts 0x%x", a.caps, a.reserved_lkey, a.page_shifts);
    return 0;
}

static int op_alloc_pd(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_bind(c, o, "pd", SYM_PD, &id);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", 0, &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, id);
    rc = hcadrv_alloc_pd(scn_drv(c), &p->pd);
    if ((rc = expect_rc(c, rc, want, "ALLOC_PD")))
        return rc;
    p->live = want == 0;
    scn_note(c, "pd %u", p->pd);
    return 0;
}

static int op_create_cq(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t depth = 64;
    int rc = scn_bind(c, o, "cq", SYM_CQ, &id);
    if (!rc)
        rc = scn_int(c, o, "depth", 0, 1, 1u << HCA_QUEUE_LOG_MAX, &depth);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *q = scn_obj(c, id);
    if ((rc = hcadrv_create_cq(scn_drv(c), (uint32_t)depth, &q->cq)))
        return device_refused(c, rc, "CREATE_CQ");
    if (!(q->seen_cycle = calloc((size_t)1 << q->cq.log_depth, sizeof *q->seen_cycle)))
        return scn_bad(c, "out of memory");
    q->live = 1;
    scn_note(c, "cqn %u, %u entries", q->cq.cqn, 1u << q->cq.log_depth);
    return 0;
}

static int op_create_qp(ctx_t *c, const json_value_t *o)
{
    int id, pd, scq, rcq;
    uint64_t sq = 64, rq = 64, retry = 7, timer = 1000, mtu = 0;
    int rc = scn_bind(c, o, "qp", SYM_QP, &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", 1, SYM_PD, &pd);
    if (!rc)
        rc = scn_ref(c, o, "send_cq", 1, SYM_CQ, &scq);
    if (!rc)
        rc = scn_ref(c, o, "recv_cq", 1, SYM_CQ, &rcq);
    if (!rc)
        rc = scn_int(c, o, "sq_depth", 0, 1, 1u << HCA_QUEUE_LOG_MAX, &sq);
    if (!rc)
        rc = scn_int(c, o, "rq_depth", 0, 1, 1u << HCA_QUEUE_LOG_MAX, &rq);
    if (!rc)
        rc = scn_int(c, o, "rnr_retry", 0, 0, 7, &retry);
    if (!rc)
        rc = scn_int(c, o, "rnr_timer", 0, 0, UINT32_MAX, &timer);
    if (!rc)
        rc = scn_int(c, o, "mtu", 0, 256, 4096, &mtu);
    if (!rc && json_get(o, "mtu") && (mtu & (mtu - 1)))
        rc = scn_bad_field(c, "mtu", "%" PRIu64 " is not a power of two", mtu);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *q = scn_obj(c, id);
    hcadrv_qp_attr_t a;
    memset(&a, 0, sizeof a);
    a.pd = scn_obj(c, pd)->pd;
    a.send_cq = &scn_obj(c, scq)->cq;
    a.recv_cq = &scn_obj(c, rcq)->cq;
    a.sq_depth = (uint32_t)sq;
    a.rq_depth = (uint32_t)rq;
    a.rnr_retry = (unsigned)retry;
    a.rnr_timer = (uint32_t)timer;
    a.mtu = (uint32_t)mtu;
    if ((rc = hcadrv_create_qp(scn_drv(c), &a, &q->qp)))
        return device_refused(c, rc, "CREATE_QP");
    q->live = 1;
    scn_note(c, "qpn %u", q->qp.qpn);
    return 0;
}

static int op_connect(ctx_t *c, const json_value_t *o)
{
    int a, b;
    int rc = scn_ref(c, o, "qp", 1, SYM_QP, &a);
    if (!rc)
        rc = scn_ref(c, o, "remote", 1, SYM_QP, &b);
    if (rc || !RUNNING)
        return rc;
    if ((rc = hcadrv_connect(scn_drv(c), &scn_obj(c, a)->qp, &scn_obj(c, b)->qp)))
        return device_refused(c, rc, "CONNECT_QP");
    return 0;
}

/* ================================================================ host memory */

static int op_host_alloc(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t size = 0, align = 4096;
    unsigned fill = 0;
    uint8_t byte = 0;
    int rc = scn_bind(c, o, "buf", SYM_BUF, &id);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1, 1ull << 30, &size);
    if (!rc)
        rc = scn_int(c, o, "align", 0, 1, 1ull << 30, &align);
    if (!rc && (align & (align - 1)))
        rc = scn_bad_field(c, "align", "%" PRIu64 " is not a power of two", align);
    if (!rc)
        rc = fill_of(c, o, &fill, &byte);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = size;
        return 0;
    }
    rt_obj_t *b = scn_obj(c, id);
    if ((rc = hostmem_alloc(scn_mem(c), size, align, &b->addr)))
        return scn_bad(c, "host memory: %s", strerror(-rc));
    b->size = size;
    b->live = 1;
    scn_note(c, "bus address 0x%" PRIx64 ", %" PRIu64 " bytes", b->addr, size);
    return fill_buffer(c, id, fill, byte);
}

/* A range of a buffer, checked against its size when validating. */
static int buf_range(ctx_t *c, int id, const char *k, uint64_t off, uint64_t len)
{
    const sym_t *y = scn_sym(c, id);
    if (off > y->size || len > y->size - off)
        return scn_bad_field(c, k, "[%" PRIu64 ", +%" PRIu64 ") is outside buffer \"%s\" (%" PRIu64 " bytes)", off,
                             len, y->name, y->size);
    return 0;
}

static int op_host_write(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t off = 0;
    uint8_t *bytes = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "buf", 1, SYM_BUF, &id);
    if (!rc)
        rc = scn_int(c, o, "offset", 0, 0, UINT64_MAX, &off);
    if (!rc)
        rc = scn_hex(c, o, "hex", 1, &bytes, &n);
    if (!rc)
        rc = buf_range(c, id, "hex", off, n);
    if (!rc && RUNNING) {
        if (scn_sym(c, id)->peer)
            rc = scn_unavailable(c, "a peer buffer", "peer memory");
        else if (hostmem_write(scn_mem(c), scn_obj(c, id)->addr + off, bytes, n))
            rc = scn_bad(c, "host memory refused the write");
    }
    free(bytes);
    return rc;
}

static int op_check_mem(ctx_t *c, const json_value_t *o)
{
    int id, other = -1;
    uint64_t off = 0, len = 0, off2 = 0;
    uint8_t *want = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "buf", 1, SYM_BUF, &id);
    const json_value_t *same = json_get(o, "same_as");
    if (!rc)
        rc = scn_int(c, o, "offset", 0, 0, UINT64_MAX, &off);
    if (!rc && !!json_get(o, "hex") == !!same)
        rc = scn_bad(c, "give exactly one of \"hex\" and \"same_as\"");
    if (!rc && same) {
        rc = scn_int(c, o, "length", 1, 0, 1ull << 30, &len);
        if (!rc)
            rc = need_object(c, same, "same_as");
        char saved[sizeof c->path];
        push_path(c, "same_as", 0, 0, saved);
        if (!rc)
            rc = scn_fields_known(c, same, "buf offset");
        if (!rc)
            rc = scn_ref(c, same, "buf", 1, SYM_BUF, &other);
        if (!rc)
            rc = scn_int(c, same, "offset", 0, 0, UINT64_MAX, &off2);
        if (!rc)
            rc = buf_range(c, other, "offset", off2, len);
        pop_path(c, saved);
    } else if (!rc) {
        rc = scn_hex(c, o, "hex", 1, &want, &n);
        if (!rc && json_get(o, "length")) {
            rc = scn_int(c, o, "length", 0, 0, 1ull << 30, &len);
            if (!rc && len != n)
                rc = scn_bad_field(c, "length", "%" PRIu64 " differs from the %zu bytes of \"hex\"", len, n);
        }
        len = n;
    }
    if (!rc)
        rc = buf_range(c, id, "length", off, len);
    if (rc || !RUNNING) {
        free(want);
        return rc;
    }
    if (scn_sym(c, id)->peer || (other >= 0 && scn_sym(c, other)->peer)) {
        free(want);
        return scn_unavailable(c, "a peer buffer", "peer memory");
    }
    uint8_t *got = malloc(len ? len : 1);
    if (!got) {
        free(want);
        return scn_bad(c, "out of memory");
    }
    if (same) {
        if (!(want = malloc(len ? len : 1)) || hostmem_read(scn_mem(c), scn_obj(c, other)->addr + off2, want, len))
            rc = scn_bad(c, "cannot read buffer \"%s\"", scn_sym(c, other)->name);
    }
    if (!rc && hostmem_read(scn_mem(c), scn_obj(c, id)->addr + off, got, len))
        rc = scn_bad(c, "cannot read buffer \"%s\"", scn_sym(c, id)->name);
    for (uint64_t i = 0; !rc && i < len; i++)
        if (got[i] != want[i]) {
            char ew[40] = "", gw[40] = "";
            for (uint64_t j = i; j < len && j < i + 16; j++) {
                snprintf(ew + strlen(ew), sizeof ew - strlen(ew), "%02x", want[j]);
                snprintf(gw + strlen(gw), sizeof gw - strlen(gw), "%02x", got[j]);
            }
            char what[160];
            if (same)
                snprintf(what, sizeof what, " (same as %s+0x%" PRIx64 ")", scn_sym(c, other)->name, off2 + i);
            else
                what[0] = 0;
            rc = scn_mismatch(c, "%s+0x%" PRIx64 " (byte %" PRIu64 " of %" PRIu64 "): expected %s…%s, got %s…",
                              scn_sym(c, id)->name, off + i, i, len, ew, what, gw);
        }
    free(got);
    free(want);
    if (!rc)
        scn_note(c, "%" PRIu64 " bytes as expected", len);
    return rc;
}

/* ================================================================ peer memory (parsed, not served yet) */

#define PEER "peer memory"

static int op_peer_client(ctx_t *c, const json_value_t *o)
{
    int id, inv = 0;
    uint64_t ps = 0, size = 0;
    int rc = scn_bind(c, o, "client", SYM_CLIENT, &id);
    if (!rc)
        rc = scn_int(c, o, "page_size", 1, 4096, 1ull << 30, &ps);
    if (!rc && (ps & (ps - 1)))
        rc = scn_bad_field(c, "page_size", "%" PRIu64 " is not a power of two", ps);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1, 1ull << 40, &size);
    if (!rc)
        rc = scn_bool(c, o, "requires_invalidation", 0, &inv);
    if (rc || !RUNNING)
        return rc;
    return scn_unavailable(c, NULL, PEER);
}

static int op_peer_alloc(ctx_t *c, const json_value_t *o)
{
    int id, cl;
    uint64_t size = 0;
    unsigned fill;
    uint8_t byte;
    int rc = scn_bind(c, o, "buf", SYM_BUF, &id);
    if (!rc)
        rc = scn_ref(c, o, "client", 1, SYM_CLIENT, &cl);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1, 1ull << 30, &size);
    if (!rc)
        rc = fill_of(c, o, &fill, &byte);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = size;
        scn_sym(c, id)->peer = 1;
        return 0;
    }
    return scn_unavailable(c, NULL, PEER);
}

static int op_peer_invalidate(ctx_t *c, const json_value_t *o)
{
    int cl, b;
    int rc = scn_ref(c, o, "client", 1, SYM_CLIENT, &cl);
    if (!rc)
        rc = scn_ref(c, o, "buf", 1, SYM_BUF, &b);
    if (!rc && !RUNNING && !scn_sym(c, b)->peer)
        rc = scn_bad_field(c, "buf", "\"%s\" is host memory, not a peer buffer", scn_sym(c, b)->name);
    if (rc || !RUNNING)
        return rc;
    return scn_unavailable(c, NULL, PEER);
}

static int op_peer_stats(ctx_t *c, const json_value_t *o)
{
    int cl;
    int rc = scn_ref(c, o, "client", 1, SYM_CLIENT, &cl);
    const json_value_t *e = json_get(o, "expect");
    if (!rc && !e)
        rc = scn_bad_field(c, "expect", "missing (an object of counters)");
    if (!rc)
        rc = need_object(c, e, "expect");
    static const char *const counters = "num_alloc_mrs num_dealloc_mrs num_reg_pages num_dereg_pages num_reg_bytes "
                                        "num_dereg_bytes num_free_callbacks";
    char saved[sizeof c->path];
    push_path(c, "expect", 0, 0, saved);
    if (!rc)
        rc = scn_fields_known(c, e, counters);
    for (size_t i = 0; !rc && i < e->u.object.n; i++) {
        uint64_t v;
        rc = scn_int_value(c, e->u.object.members[i].value, e->u.object.members[i].key, 0, UINT64_MAX, &v);
    }
    pop_path(c, saved);
    if (rc || !RUNNING)
        return rc;
    return scn_unavailable(c, NULL, PEER);
}

/* ================================================================ registration */

static int op_reg_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, b, want = 0;
    uint64_t off = 0, len = 0, iova = 0, ps = HCA_PAGE_SHIFT_MIN;
    uint32_t access = 0;
    int rc = scn_bind(c, o, "mr", SYM_MR, &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", 1, SYM_PD, &pd);
    if (!rc)
        rc = scn_ref(c, o, "buf", 1, SYM_BUF, &b);
    if (!rc)
        rc = scn_int(c, o, "offset", 0, 0, UINT64_MAX, &off);
    if (!rc)
        rc = scn_int(c, o, "length", 0, 0, UINT64_MAX, &len);
    if (!rc && !json_get(o, "length") && !RUNNING && off > scn_sym(c, b)->size)
        rc = scn_bad_field(c, "offset", "%" PRIu64 " is past the end of buffer \"%s\"", off, scn_sym(c, b)->name);
    if (!rc)
        rc = scn_flags(c, o, "access", 0, hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
    if (!rc)
        rc = scn_int(c, o, "iova", 0, 0, UINT64_MAX, &iova);
    if (!rc)
        rc = scn_int(c, o, "page_shift", 0, 0, 63, &ps);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", 0, &want);
    if (rc || !RUNNING)
        return rc;
    if (scn_sym(c, b)->peer)
        return scn_unavailable(c, "registration over a peer buffer", PEER);
    rt_obj_t *m = scn_obj(c, id), *buf = scn_obj(c, b);
    if (!json_get(o, "length"))
        len = buf->size - off;
    uint64_t addr = buf->addr + off;
    if (!json_get(o, "iova"))
        iova = addr;
    rc = hcadrv_reg_mr(scn_drv(c), scn_obj(c, pd)->pd, addr, len, iova, access, (unsigned)ps, &m->mr);
    if ((rc = expect_rc(c, rc, want, "reg_mr")))
        return rc;
    m->live = want == 0;
    if (m->live)
        scn_note(c, "lkey 0x%08x rkey 0x%08x iova 0x%" PRIx64 " length %" PRIu64, m->mr.lkey, m->mr.rkey, iova, len);
    return 0;
}

static int op_get_dma_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, want = 0;
    int rc = scn_bind(c, o, "mr", SYM_MR, &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", 1, SYM_PD, &pd);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", 0, &want);
    if (rc || !RUNNING)
        return rc;
    const hcadrv_device_attr_t *a;
    if ((rc = scn_attr(c, &a)))
        return rc;
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_get_dma_mr(scn_drv(c), scn_obj(c, pd)->pd, &m->mr);
    if ((rc = expect_rc(c, rc, want, "get_dma_mr")))
        return rc;
    m->live = want == 0;
    if (m->live)
        scn_note(c, "%s 0x%08x", a->reserved_lkey_valid ? "the reserved L_Key" : "DMA MR key", m->mr.lkey);
    return 0;
}

static int op_alloc_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd, want = 0;
    unsigned type = 0;
    uint64_t len = 0;
    int rc = scn_bind(c, o, "mr", SYM_MR, &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", 1, SYM_PD, &pd);
    if (!rc)
        rc = scn_choice(c, o, "type", 1, (const char *const[]){"fast_reg", "indirect", NULL}, &type);
    const char *lk = type == 0 ? "max_page_list_len" : "max_indir_list_len";
    const char *other = type == 0 ? "max_indir_list_len" : "max_page_list_len";
    if (!rc && json_get(o, other))
        rc = scn_bad_field(c, other, "does not apply to type %s", type == 0 ? "fast_reg" : "indirect");
    if (!rc)
        rc = scn_int(c, o, lk, 1, 0, UINT32_MAX, &len);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", 0, &want);
    if (rc || !RUNNING)
        return rc;
    if (type == 1) {
        const hcadrv_device_attr_t *a;
        if ((rc = scn_attr(c, &a)))
            return rc;
        if (!a->indir_reg)
            return scn_unavailable(c, "type indirect", "indirect registration (REG_INDIR_MR)");
    }
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_alloc_mr(scn_drv(c), scn_obj(c, pd)->pd, type == 0 ? HCA_MKEY_KIND_FAST_REG : HCA_MKEY_KIND_INDIRECT,
                         (uint32_t)len, &m->mr);
    if ((rc = expect_rc(c, rc, want, "alloc_mr")))
        return rc;
    m->live = want == 0;
    if (m->live)
        scn_note(c, "key 0x%08x (FREE until registered by a work request)", m->mr.lkey);
    return 0;
}

static int op_alloc_fast_reg_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t len = 0;
    int rc = scn_bind(c, o, "pl", SYM_PL, &id);
    if (!rc)
        rc = scn_int(c, o, "len", 1, 1, 1u << 16, &len);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = len;
        return 0;
    }
    rt_obj_t *p = scn_obj(c, id);
    if ((rc = hcadrv_alloc_fast_reg_page_list(scn_drv(c), (uint32_t)len, &p->pl)))
        return scn_bad(c, "the driver refused a page list of %" PRIu64 " entries: %s", len, strerror(-rc));
    p->addr = p->pl.bus_addr;
    p->size = len;
    p->live = 1;
    scn_note(c, "%" PRIu64 " entries (%u held) at bus address 0x%" PRIx64, len, p->pl.max_page_list_len, p->addr);
    return 0;
}

/* A page list that was not freed (validation) / that exists (run). */
static int pl_ref(ctx_t *c, const json_value_t *o, const char *k, int *id)
{
    int rc = scn_ref(c, o, k, 1, SYM_PL, id);
    if (!rc && !RUNNING && scn_sym(c, *id)->freed)
        rc = scn_bad_field(c, k, "page list \"%s\" was freed on line %u", scn_sym(c, *id)->name,
                           scn_sym(c, *id)->freed);
    return rc;
}

static int op_free_fast_reg_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    int rc = pl_ref(c, o, "pl", &id);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->freed = c->line;
        return 0;
    }
    rt_obj_t *p = scn_obj(c, id);
    if ((rc = hcadrv_free_fast_reg_page_list(scn_drv(c), &p->pl)))
        return scn_bad(c, "the driver refused to free page list \"%s\": %s%s", scn_sym(c, id)->name, strerror(-rc),
                       rc == -EBUSY ? " (a FAST_REG_MR naming it has not completed: poll its CQE first)" : "");
    p->live = 0;
    return 0;
}

static int op_set_page_list(ctx_t *c, const json_value_t *o)
{
    int id;
    int rc = pl_ref(c, o, "pl", &id);
    const json_value_t *pages = json_get(o, "pages");
    if (!rc && !pages)
        rc = scn_bad_field(c, "pages", "missing (a list of {\"buf\",\"offset\"} or {\"addr\"})");
    if (!rc)
        rc = need_array(c, pages, "pages", 1, RUNNING ? SIZE_MAX : scn_sym(c, id)->size);
    for (size_t i = 0; !rc && i < pages->u.array.n; i++) {
        const json_value_t *e = pages->u.array.items[i];
        char ik[48];
        snprintf(ik, sizeof ik, "pages[%zu]", i);
        if ((rc = need_object(c, e, ik)))
            break;
        char saved[sizeof c->path];
        push_path(c, "pages", i, 1, saved);
        uint64_t addr = 0, off = 0;
        int b = -1;
        if (json_get(e, "buf")) {
            rc = scn_fields_known(c, e, "buf offset");
            if (!rc)
                rc = scn_ref(c, e, "buf", 1, SYM_BUF, &b);
            if (!rc)
                rc = scn_int(c, e, "offset", 0, 0, UINT64_MAX, &off);
        } else {
            rc = scn_fields_known(c, e, "addr");
            if (!rc)
                rc = scn_int(c, e, "addr", 1, 0, UINT64_MAX, &addr);
        }
        pop_path(c, saved);
        if (!rc && RUNNING) {
            if (b >= 0)
                addr = scn_obj(c, b)->addr + off;
            int e = hcadrv_page_list_set(&scn_obj(c, id)->pl, (uint32_t)i, addr);
            if (e)
                rc = scn_bad(c, "the driver refused to set page list entry %zu: %s%s", i, strerror(-e),
                             e == -EBUSY ? " (a FAST_REG_MR naming it has not completed)" : "");
        }
    }
    return rc;
}

static int op_update_fast_reg_key(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t key = 0;
    int rc = scn_ref(c, o, "mr", 1, SYM_MR, &id);
    if (!rc)
        rc = scn_int(c, o, "key", 1, 0, 0xff, &key);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = mr_key(c, id, "mr", &k)))
        return rc;
    hcadrv_mr_t *m = &scn_obj(c, id)->mr;
    hcadrv_update_fast_reg_key(m, (uint8_t)key);
    scn_note(c, "driver-side key now 0x%08x", m->lkey);
    return 0;
}

static int op_dereg_mr(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_ref(c, o, "mr", 1, SYM_MR, &id);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", 0, &want);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = mr_key(c, id, "mr", &k)))
        return rc;
    rt_obj_t *m = scn_obj(c, id);
    rc = hcadrv_dereg_mr(scn_drv(c), &m->mr);
    return expect_rc(c, rc, want, "dereg_mr");
}

static int op_check_mr(ctx_t *c, const json_value_t *o)
{
    int id, pd = -1, alloc = 0;
    const json_value_t *e = json_get(o, "expect");
    int rc = scn_ref(c, o, "mr", 1, SYM_MR, &id);
    if (!rc && !e)
        rc = scn_bad_field(c, "expect", "missing (an object of MPT fields)");
    if (!rc)
        rc = need_object(c, e, "expect");
    unsigned state = 0, kind = 0;
    uint64_t key = 0, lkey = 0, rkey = 0, iova = 0, length = 0, ps = 0;
    uint32_t access = 0;
    char saved[sizeof c->path];
    push_path(c, "expect", 0, 0, saved);
    if (!rc)
        rc = scn_fields_known(c, e, "state key lkey rkey iova length access kind pd allocated page_shift");
    if (!rc)
        rc = scn_enum(c, e, "state", 0, hca_mkey_state_name, HCA_MKEY_STATE_MAX, &state);
    if (!rc)
        rc = scn_int(c, e, "key", 0, 0, 0xff, &key);
    if (!rc)
        rc = scn_int(c, e, "lkey", 0, 0, UINT32_MAX, &lkey);
    if (!rc)
        rc = scn_int(c, e, "rkey", 0, 0, UINT32_MAX, &rkey);
    if (!rc)
        rc = scn_int(c, e, "iova", 0, 0, UINT64_MAX, &iova);
    if (!rc)
        rc = scn_int(c, e, "length", 0, 0, UINT64_MAX, &length);
    if (!rc)
        rc = scn_flags(c, e, "access", 0, hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
    if (!rc)
        rc = scn_enum(c, e, "kind", 0, hca_mkey_kind_name, HCA_MKEY_KIND_MAX, &kind);
    if (!rc)
        rc = scn_ref(c, e, "pd", 0, SYM_PD, &pd);
    if (!rc)
        rc = scn_bool(c, e, "allocated", 0, &alloc);
    if (!rc)
        rc = scn_int(c, e, "page_shift", 0, 0, 31, &ps);
    pop_path(c, saved);
    if (rc || !RUNNING)
        return rc;
    uint32_t k;
    if ((rc = mr_key(c, id, "mr", &k)))
        return rc;
    hca_mpt_entry_t m;
    if ((rc = hcadrv_query_mkey(scn_drv(c), k >> HCA_KEY_INDEX_SHIFT, &m)))
        return device_refused(c, rc, "QUERY_MKEY");
    const char *nm = scn_sym(c, id)->name;
#define CHECK_NUM(field, want, got)                                                                                   \
    if (json_get(e, field) && (uint64_t)(want) != (uint64_t)(got))                                                    \
        return scn_mismatch(c, "MPT[%u] of %s: expected %s 0x%" PRIx64 ", got 0x%" PRIx64, k >> HCA_KEY_INDEX_SHIFT,  \
                            nm, field, (uint64_t)(want), (uint64_t)(got));
    if (json_get(e, "allocated") && !!alloc != !!hca_mpt_entry_get_alloc(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected allocated %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            alloc ? "true" : "false", alloc ? "false" : "true");
    if (json_get(e, "state") && state != hca_mpt_entry_get_state(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected state %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            hca_mkey_state_name(state), hca_mkey_state_name(hca_mpt_entry_get_state(&m)));
    if (json_get(e, "kind") && kind != hca_mpt_entry_get_kind(&m))
        return scn_mismatch(c, "MPT[%u] of %s: expected kind %s, got %s", k >> HCA_KEY_INDEX_SHIFT, nm,
                            hca_mkey_kind_name(kind), hca_mkey_kind_name(hca_mpt_entry_get_kind(&m)));
    CHECK_NUM("key", key, m.key & HCA_KEY_BYTE_MASK)
    CHECK_NUM("lkey", lkey, m.key)
    CHECK_NUM("rkey", rkey, m.key)
    CHECK_NUM("iova", iova, m.iova)
    CHECK_NUM("length", length, m.length)
    CHECK_NUM("access", access, hca_mpt_entry_get_access(&m))
    CHECK_NUM("page_shift", ps, hca_mpt_entry_get_page_shift(&m))
    if (pd >= 0)
        CHECK_NUM("pd", scn_obj(c, pd)->pd, m.pd)
#undef CHECK_NUM
    scn_note(c, "MPT[%u]: %s %s key 0x%08x pd %u iova 0x%" PRIx64 " length %" PRIu64, k >> HCA_KEY_INDEX_SHIFT,
             hca_mkey_kind_name(hca_mpt_entry_get_kind(&m)), hca_mkey_state_name(hca_mpt_entry_get_state(&m)), m.key,
             m.pd, m.iova, m.length);
    return 0;
}

/* ================================================================ work requests */

/* Fields each send opcode takes, besides qp wr_id opcode signaled fence expect_post. */
static const char *const wr_fields[] = {
    [HCA_WR_OPCODE_SEND] = "sge",
    [HCA_WR_OPCODE_SEND_WITH_INV] = "sge invalidate",
    [HCA_WR_OPCODE_RDMA_WRITE] = "sge remote_addr remote rkey",
    [HCA_WR_OPCODE_RDMA_READ] = "sge remote_addr remote rkey",
    [HCA_WR_OPCODE_RDMA_READ_WITH_INV] = "sge remote_addr remote rkey invalidate",
    [HCA_WR_OPCODE_LOCAL_INV] = "invalidate",
    [HCA_WR_OPCODE_FAST_REG_MR] = "mr page_list page_list_len page_shift iova length access key",
    [HCA_WR_OPCODE_REG_INDIR_MR] = "mr list iova length access key",
};

/* Which capability a send opcode needs before the device serves it, or NULL. */
static int opcode_available(ctx_t *c, unsigned opc)
{
    if (opc == HCA_WR_OPCODE_SEND || opc == HCA_WR_OPCODE_RDMA_WRITE || opc == HCA_WR_OPCODE_RDMA_READ)
        return 0;
    const hcadrv_device_attr_t *a;
    int rc = scn_attr(c, &a);
    if (rc)
        return rc;
    const char *name = hca_wr_opcode_name(opc);
    if (!a->mem_mgt_extensions)
        return scn_unavailable(c, name, "the memory-management extensions (FAST_REG_MR, LOCAL_INV, SEND_WITH_INV)");
    if (opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !a->read_with_inv)
        return scn_unavailable(c, name, "the read_with_inv capability");
    if (opc == HCA_WR_OPCODE_REG_INDIR_MR && !a->indir_reg)
        return scn_unavailable(c, name, "indirect registration (REG_INDIR_MR)");
    return 0;
}

static int op_post_send(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0, signaled = 1, fence = 0;
    unsigned opc = 0;
    hcadrv_send_wr_t wr;
    memset(&wr, 0, sizeof wr);
    int rc = scn_ref(c, o, "qp", 1, SYM_QP, &qp);
    if (!rc)
        rc = scn_int(c, o, "wr_id", 1, 0, UINT64_MAX, &wr.wr_id);
    if (!rc)
        rc = scn_enum(c, o, "opcode", 1, hca_wr_opcode_name, HCA_WR_OPCODE_MAX, &opc);
    if (rc)
        return rc;
    const char *oname = hca_wr_opcode_name(opc);
    for (size_t i = 0; i < o->u.object.n; i++) { /* fields of other opcodes */
        const json_member_t *m = &o->u.object.members[i];
        static const char common[] = "op qp wr_id opcode signaled fence expect_post";
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(m->key_len < 60 ? m->key_len : 60), m->key);
        char list[160];
        snprintf(list, sizeof list, " %s %s ", common, wr_fields[opc]);
        char probe[70];
        snprintf(probe, sizeof probe, " %s ", word);
        if (!strstr(list, probe))
            return scn_bad_field(c, word, "does not apply to opcode %s (it takes: %s)", oname, wr_fields[opc]);
    }
    rc = scn_bool(c, o, "signaled", 0, &signaled);
    if (!rc)
        rc = scn_bool(c, o, "fence", 0, &fence);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", 0, &want);
    unsigned nsge = 0;
    if (!rc && strstr(wr_fields[opc], "sge"))
        rc = sge_list(c, o, "sge", 0, wr.sge, HCA_MAX_SEND_SGE, &nsge);
    wr.num_sge = nsge;
    int remote_id = -1, remote_buf = -1, fr_mr = -1, pl = -1;
    uint64_t remote_off = 0;
    if (!rc && strstr(wr_fields[opc], "remote")) {
        const json_value_t *r = json_get(o, "remote");
        int has_addr = json_get(o, "remote_addr") != NULL;
        if (!!r == has_addr)
            rc = scn_bad(c, "%s takes exactly one of \"remote_addr\" and \"remote\"", oname);
        if (!rc && has_addr) {
            rc = scn_int(c, o, "remote_addr", 1, 0, UINT64_MAX, &wr.remote_addr);
            if (!rc && !json_get(o, "rkey"))
                rc = scn_bad_field(c, "rkey", "missing (with \"remote_addr\", name the R_Key)");
        }
        if (!rc && r) {
            char saved[sizeof c->path];
            rc = need_object(c, r, "remote");
            push_path(c, "remote", 0, 0, saved);
            if (!rc)
                rc = scn_fields_known(c, r, "mr buf offset");
            if (!rc && !!json_get(r, "mr") == !!json_get(r, "buf"))
                rc = scn_bad(c, "\"remote\" names exactly one of \"mr\" (its iova and R_Key) and \"buf\" (its bus "
                                "address, with \"rkey\")");
            if (!rc && json_get(r, "mr"))
                rc = scn_ref(c, r, "mr", 1, SYM_MR, &remote_id);
            if (!rc && json_get(r, "buf")) {
                rc = scn_ref(c, r, "buf", 1, SYM_BUF, &remote_buf);
                if (!rc && !json_get(o, "rkey")) {
                    pop_path(c, saved);
                    return scn_bad_field(c, "rkey", "missing (with \"remote\":{\"buf\":…}, name the R_Key)");
                }
            }
            if (!rc)
                rc = scn_int(c, r, "offset", 0, 0, UINT64_MAX, &remote_off);
            pop_path(c, saved);
        }
        if (!rc)
            rc = keyref(c, o, "rkey", 0, &wr.rkey);
    }
    if (!rc && strstr(wr_fields[opc], "invalidate"))
        rc = keyref(c, o, "invalidate", opc != HCA_WR_OPCODE_RDMA_READ_WITH_INV, &wr.inv_key);
    if (!rc && opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !json_get(o, "invalidate") && !nsge)
        rc = scn_bad_field(c, "invalidate", "missing (with no sge, there is no sge[0] whose key it defaults to)");
    uint64_t list_len = 0, ps = HCA_PAGE_SHIFT_MIN, iova = 0, length = 0;
    uint32_t access = 0, key = 0;
    hca_sge_t klm[SCN_MAX_SGES];
    unsigned nklm = 0;
    if (!rc && (opc == HCA_WR_OPCODE_FAST_REG_MR || opc == HCA_WR_OPCODE_REG_INDIR_MR)) {
        rc = scn_ref(c, o, "mr", 1, SYM_MR, &fr_mr);
        if (!rc && opc == HCA_WR_OPCODE_FAST_REG_MR) {
            rc = pl_ref(c, o, "page_list", &pl);
            if (!rc)
                rc = scn_int(c, o, "page_list_len", 0, 0, 0xffff, &list_len);
            if (!rc)
                rc = scn_int(c, o, "page_shift", 0, 0, 31, &ps);
        }
        if (!rc && opc == HCA_WR_OPCODE_REG_INDIR_MR) {
            memset(klm, 0, sizeof klm);
            rc = sge_list(c, o, "list", 1, klm, SCN_MAX_SGES, &nklm);
        }
        if (!rc)
            rc = scn_int(c, o, "iova", 1, 0, UINT64_MAX, &iova);
        if (!rc)
            rc = scn_int(c, o, "length", 1, 0, UINT64_MAX, &length);
        if (!rc)
            rc = scn_flags(c, o, "access", 0, hca_access_bit_name, HCA_ACCESS_WIDTH, &access);
        const json_value_t *kv = json_get(o, "key");
        if (!rc && kv && kv->type != JSON_OBJECT) {
            uint64_t x = 0;
            rc = scn_int_value(c, kv, "key", 0, UINT32_MAX, &x);
            key = (uint32_t)x;
        } else if (!rc && kv)
            rc = keyref_value(c, kv, "key", &key);
    }
    if (rc || !RUNNING)
        return rc;

    /* ---- run */
    if ((rc = opcode_available(c, opc)))
        return rc;
    rt_obj_t *q = scn_obj(c, qp);
    wr.opcode = opc;
    wr.flags = (signaled ? HCA_SEND_FLAGS_SIGNALED : 0) | (fence ? HCA_SEND_FLAGS_FENCE : 0);
    if (remote_buf >= 0)
        wr.remote_addr = scn_obj(c, remote_buf)->addr + remote_off; /* a bus address: for keys without translation */
    if (remote_id >= 0) {
        uint32_t rk;
        if ((rc = mr_key(c, remote_id, "remote.mr", &rk)))
            return rc;
        wr.remote_addr = scn_obj(c, remote_id)->mr.iova + remote_off;
        if (!json_get(o, "rkey"))
            wr.rkey = rk;
    }
    if (opc == HCA_WR_OPCODE_RDMA_READ_WITH_INV && !json_get(o, "invalidate"))
        wr.inv_key = wr.sge[0].lkey; /* SEMANTICS.md: default the MR of sge[0] (validated: nsge >= 1) */
    uint64_t klm_addr = 0;
    if (fr_mr >= 0) {
        uint32_t mk;
        if ((rc = mr_key(c, fr_mr, "mr", &mk)))
            return rc;
        const json_value_t *kv = json_get(o, "key");
        if (!kv)
            key = mk;
        else if (kv->type != JSON_OBJECT && key <= HCA_KEY_BYTE_MASK)
            key = (mk & ~(uint32_t)HCA_KEY_BYTE_MASK) | key; /* a key byte on the MR's index */
        wr.fr_key = key;
        /* The WR names its MR apart from its key (hcadrv_send_wr_t.mr: the
         * WQE's rkey is the MR's key as the driver holds it; only its index
         * counts), so a "key" on another index is refused by the device
         * (MW_BIND_ERR) rather than registering that other MR. */
        wr.mr = &scn_obj(c, fr_mr)->mr;
        wr.fr_iova = iova;
        wr.fr_length = length;
        wr.fr_access = access;
        if (pl >= 0) {
            wr.page_list = &scn_obj(c, pl)->pl;
            wr.fr_list_len = (unsigned)(json_get(o, "page_list_len") ? list_len : scn_obj(c, pl)->size);
            wr.fr_page_shift = (unsigned)ps;
        } else {
            /* KLM list: {addr, length, lkey} entries as SGEs, in fresh host memory */
            if ((rc = hostmem_alloc(scn_mem(c), nklm * sizeof(hca_sge_t) + 1, 64, &klm_addr)) ||
                hostmem_write(scn_mem(c), klm_addr, klm, nklm * sizeof(hca_sge_t)))
                return scn_bad(c, "host memory refused the KLM list");
            wr.fr_list = klm_addr;
            wr.fr_list_len = nklm;
        }
    }
    uint64_t now = hca_dev_cycle(scn_dev(c));
    rc = hcadrv_post_send(scn_drv(c), &q->qp, &wr);
    if ((rc = expect_rc(c, rc, want, "post_send")))
        return rc;
    if (want)
        return 0;
    uint32_t index = q->qp.sq_pi - 1; /* the call refreshed the driver's indices */
    wr_rec_t *w = scn_add_wr(c, qp, 0, wr.wr_id, oname, index);
    if (!w)
        return scn_bad(c, "out of memory");
    w->post_cycle = now;
    if (fr_mr >= 0 && opc == HCA_WR_OPCODE_FAST_REG_MR && scn_obj(c, fr_mr)->mr.kind == HCA_MKEY_KIND_FAST_REG) {
        /* The driver now holds the WR's registration (as ib_map_mr_sg does for
         * an alloc_mr MR). Only a fast-reg MR's copy changes: a WR that names a
         * regular MR (refused MW_BIND_ERR) leaves it alone. The copy keeps its
         * own MPT index: a WR whose key names another index (refused too) takes
         * no key, so check_mr and key references still reach this MR. */
        hcadrv_mr_t *m = &scn_obj(c, fr_mr)->mr;
        if ((key >> HCA_KEY_INDEX_SHIFT) == (m->lkey >> HCA_KEY_INDEX_SHIFT)) {
            m->lkey = key;
            m->rkey = key;
        }
        m->iova = iova;
        m->length = length;
        m->access = access;
    }
    scn_note(c, "%s wr_id %" PRIu64 " posted at SQ index %u", oname, wr.wr_id, index);
    return 0;
}

static int op_post_recv(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0;
    hcadrv_recv_wr_t wr;
    memset(&wr, 0, sizeof wr);
    hca_sge_t sge[SCN_MAX_SGES];
    unsigned n = 0;
    int rc = scn_ref(c, o, "qp", 1, SYM_QP, &qp);
    if (!rc)
        rc = scn_int(c, o, "wr_id", 1, 0, UINT64_MAX, &wr.wr_id);
    if (!rc)
        rc = sge_list(c, o, "sge", 0, sge, SCN_MAX_SGES, &n);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", 0, &want);
    if (rc || !RUNNING)
        return rc;
    wr.num_sge = n;
    memcpy(wr.sge, sge, sizeof wr.sge);
    rt_obj_t *q = scn_obj(c, qp);
    uint64_t now = hca_dev_cycle(scn_dev(c));
    rc = hcadrv_post_recv(scn_drv(c), &q->qp, &wr);
    if ((rc = expect_rc(c, rc, want, "post_recv")) || want)
        return rc;
    uint32_t index = q->qp.rq_pi - 1;
    wr_rec_t *w = scn_add_wr(c, qp, 1, wr.wr_id, "RECV", index);
    if (!w)
        return scn_bad(c, "out of memory");
    w->post_cycle = now;
    return 0;
}

static int op_post_raw_wqe(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0;
    uint64_t wr_id = 0;
    uint8_t *bytes = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "qp", 1, SYM_QP, &qp);
    if (!rc)
        rc = scn_hex(c, o, "hex", 1, &bytes, &n);
    if (!rc && n > sizeof(hca_sq_wqe_t))
        rc = scn_bad_field(c, "hex", "%zu bytes, a WQE has %zu", n, sizeof(hca_sq_wqe_t));
    if (!rc)
        rc = scn_int(c, o, "wr_id", 0, 0, UINT64_MAX, &wr_id);
    if (!rc)
        rc = scn_errno(c, o, "expect_post", 0, &want);
    if (rc || !RUNNING) {
        free(bytes);
        return rc;
    }
    uint8_t wqe[sizeof(hca_sq_wqe_t)];
    memset(wqe, 0, sizeof wqe);
    memcpy(wqe, bytes, n);
    free(bytes);
    rt_obj_t *q = scn_obj(c, qp);
    uint64_t now = hca_dev_cycle(scn_dev(c));
    rc = hcadrv_post_send_raw(scn_drv(c), &q->qp, wqe, sizeof wqe);
    if ((rc = expect_rc(c, rc, want, "post_raw_wqe")) || want)
        return rc;
    uint32_t index = q->qp.sq_pi - 1;
    if (!json_get(o, "wr_id"))
        memcpy(&wr_id, wqe + offsetof(hca_sq_wqe_t, wr_id), 8);
    wr_rec_t *w = scn_add_wr(c, qp, 0, wr_id, "RAW", index);
    if (!w)
        return scn_bad(c, "out of memory");
    w->post_cycle = now;
    return 0;
}

/* ================================================================ time and completions */

static int op_run(ctx_t *c, const json_value_t *o)
{
    uint64_t n = 0;
    int rc = scn_int(c, o, "cycles", 1, 0, 1ull << 40, &n);
    if (rc || !RUNNING)
        return rc;
    scn_advance(c, n);
    return 0;
}

typedef struct cqe_exp {
    unsigned has; /* bits: E_* */
    uint64_t wr_id, status_mask, max_latency;
    unsigned opcode;
    uint32_t byte_len, wc_flags, inv_rkey;
    int qp;
} cqe_exp_t;

enum { E_WR_ID = 1, E_STATUS = 2, E_OPCODE = 4, E_BYTE_LEN = 8, E_FLAGS = 16, E_INV = 32, E_QP = 64, E_LAT = 128 };

static int parse_cqe_exp(ctx_t *c, const json_value_t *v, size_t i, cqe_exp_t *x)
{
    char ik[48];
    snprintf(ik, sizeof ik, "expect[%zu]", i);
    int rc = need_object(c, v, ik);
    if (rc)
        return rc;
    memset(x, 0, sizeof *x);
    char saved[sizeof c->path];
    push_path(c, "expect", i, 1, saved);
    rc = scn_fields_known(c, v, "wr_id status opcode byte_len wc_flags invalidate_rkey qp max_latency_cycles");
    uint64_t bl = 0;
    if (!rc)
        rc = scn_int(c, v, "wr_id", 0, 0, UINT64_MAX, &x->wr_id);
    const json_value_t *st = json_get(v, "status");
    if (!rc && st) {
        unsigned s;
        if (st->type == JSON_ARRAY) {
            rc = need_array(c, st, "status", 1, 64);
            for (size_t k = 0; !rc && k < st->u.array.n; k++) {
                char sk[48];
                snprintf(sk, sizeof sk, "status[%zu]", k);
                rc = scn_enum_value(c, st->u.array.items[k], sk, hca_wc_status_name, HCA_WC_STATUS_MAX, &s);
                x->status_mask |= 1ull << s;
            }
        } else {
            rc = scn_enum_value(c, st, "status", hca_wc_status_name, HCA_WC_STATUS_MAX, &s);
            x->status_mask = 1ull << s;
        }
    }
    if (!rc)
        rc = scn_enum(c, v, "opcode", 0, hca_wc_opcode_name, HCA_WC_OPCODE_MAX, &x->opcode);
    if (!rc)
        rc = scn_int(c, v, "byte_len", 0, 0, UINT32_MAX, &bl);
    x->byte_len = (uint32_t)bl;
    if (!rc)
        rc = scn_flags(c, v, "wc_flags", 0, hca_wc_flags_bit_name, HCA_WC_FLAGS_WIDTH, &x->wc_flags);
    if (!rc)
        rc = keyref(c, v, "invalidate_rkey", 0, &x->inv_rkey);
    if (!rc)
        rc = scn_ref(c, v, "qp", 0, SYM_QP, &x->qp);
    if (!rc)
        rc = scn_int(c, v, "max_latency_cycles", 0, 0, UINT64_MAX, &x->max_latency);
    pop_path(c, saved);
    static const char *const keys[] = {"wr_id", "status", "opcode", "byte_len", "wc_flags", "invalidate_rkey",
                                       "qp", "max_latency_cycles"};
    for (unsigned k = 0; k < 8; k++)
        if (json_get(v, keys[k]))
            x->has |= 1u << k;
    return rc;
}

static const char *name_or(const char *n, const char *dflt)
{
    return n ? n : dflt;
}

static void fmt_flags(char *b, size_t n, uint32_t f)
{
    b[0] = 0;
    for (unsigned i = 0; i < HCA_WC_FLAGS_WIDTH; i++)
        if (f & (1u << i))
            snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? "|" : "", name_or(hca_wc_flags_bit_name(i), "?"));
    if (!b[0])
        snprintf(b, n, "none");
}

static void fmt_wc(ctx_t *c, char *b, size_t n, const hcadrv_wc_t *wc)
{
    int qp = scn_qp_by_qpn(c, wc->qpn);
    char fl[64];
    fmt_flags(fl, sizeof fl, wc->wc_flags);
    char inv[40] = "";
    if (wc->wc_flags & HCA_WC_FLAGS_WITH_INVALIDATE)
        snprintf(inv, sizeof inv, ", invalidate_rkey 0x%08x", wc->invalidate_rkey);
    snprintf(b, n, "{qp %s, wr_id %" PRIu64 ", %s, %s, byte_len %u%s%s%s}",
             qp >= 0 ? scn_sym(c, qp)->name : "?", wc->wr_id, name_or(hca_wc_opcode_name(wc->opcode), "?"),
             name_or(hca_wc_status_name(wc->status), "?"), wc->byte_len, wc->wc_flags ? ", flags " : "",
             wc->wc_flags ? fl : "", inv);
}

/* NULL when wc matches x, else what differs. */
static const char *cqe_differs(ctx_t *c, const cqe_exp_t *x, const hcadrv_wc_t *wc, uint64_t latency, int lat_known,
                               char *b, size_t n)
{
    if ((x->has & E_WR_ID) && x->wr_id != wc->wr_id)
        snprintf(b, n, "wr_id %" PRIu64 ", got %" PRIu64, x->wr_id, wc->wr_id);
    else if ((x->has & E_STATUS) && !(wc->status < 64 && (x->status_mask >> wc->status) & 1)) {
        char all[256] = "";
        for (unsigned s = 0; s <= HCA_WC_STATUS_MAX; s++)
            if ((x->status_mask >> s) & 1)
                snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", all[0] ? " or " : "",
                         hca_wc_status_name(s));
        snprintf(b, n, "status %s, got %s", all, name_or(hca_wc_status_name(wc->status), "?"));
    } else if ((x->has & E_OPCODE) && x->opcode != wc->opcode)
        snprintf(b, n, "opcode %s, got %s", hca_wc_opcode_name(x->opcode), name_or(hca_wc_opcode_name(wc->opcode), "?"));
    else if ((x->has & E_BYTE_LEN) && x->byte_len != wc->byte_len)
        snprintf(b, n, "byte_len %u, got %u", x->byte_len, wc->byte_len);
    else if ((x->has & E_FLAGS) && x->wc_flags != wc->wc_flags) {
        char e[64], g[64];
        fmt_flags(e, sizeof e, x->wc_flags);
        fmt_flags(g, sizeof g, wc->wc_flags);
        snprintf(b, n, "wc_flags %s, got %s", e, g);
    } else if ((x->has & E_INV) && x->inv_rkey != wc->invalidate_rkey)
        snprintf(b, n, "invalidate_rkey 0x%08x, got 0x%08x", x->inv_rkey, wc->invalidate_rkey);
    else if ((x->has & E_QP) && scn_obj(c, x->qp)->qp.qpn != wc->qpn)
        snprintf(b, n, "qp %s (qpn %u), got qpn %u", scn_sym(c, x->qp)->name, scn_obj(c, x->qp)->qp.qpn, wc->qpn);
    else if ((x->has & E_LAT) && !lat_known)
        snprintf(b, n, "a latency of at most %" PRIu64 " cycles, got a completion of no posted work request",
                 x->max_latency);
    else if ((x->has & E_LAT) && latency > x->max_latency)
        snprintf(b, n, "a latency of at most %" PRIu64 " cycles, got %" PRIu64, x->max_latency, latency);
    else
        return NULL;
    return b;
}

/* Kuhn's augmenting paths: can expected i take a completion? */
static int augment(size_t i, size_t n, const unsigned char *ok, int *owner, unsigned char *seen)
{
    for (size_t j = 0; j < n; j++)
        if (ok[i * n + j] && !seen[j]) {
            seen[j] = 1;
            if (owner[j] < 0 || augment((size_t)owner[j], n, ok, owner, seen)) {
                owner[j] = (int)i;
                return 1;
            }
        }
    return 0;
}

static int op_poll_cq(ctx_t *c, const json_value_t *o)
{
    int cq, any = 0;
    uint64_t timeout = 1000000;
    int rc = scn_ref(c, o, "cq", 1, SYM_CQ, &cq);
    const json_value_t *ev = json_get(o, "expect");
    if (!rc && !ev)
        rc = scn_bad_field(c, "expect", "missing (a list of expected completions)");
    if (!rc)
        rc = need_array(c, ev, "expect", 1, 1u << HCA_QUEUE_LOG_MAX);
    if (!rc)
        rc = scn_int(c, o, "timeout_cycles", 0, 0, 1ull << 40, &timeout);
    if (!rc)
        rc = scn_bool(c, o, "any_order", 0, &any);
    size_t n = rc ? 0 : ev->u.array.n;
    cqe_exp_t *x = calloc(n ? n : 1, sizeof *x);
    hcadrv_wc_t *wc = calloc(n ? n : 1, sizeof *wc);
    uint64_t *arrival = calloc(n ? n : 1, sizeof *arrival);
    wr_rec_t **rec = calloc(n ? n : 1, sizeof *rec);
    unsigned char *ok = NULL;
    int *owner = NULL;
    if (!x || !wc || !arrival || !rec)
        rc = scn_bad(c, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        rc = parse_cqe_exp(c, ev->u.array.items[i], i, &x[i]);
    if (rc || !RUNNING)
        goto out;
    rt_obj_t *q = scn_obj(c, cq);
    uint64_t start = hca_dev_cycle(scn_dev(c));
    scn_watch(c);
    while (q->seen < n && hca_dev_cycle(scn_dev(c)) - start < timeout)
        scn_advance(c, 1);
    uint32_t mask = (1u << q->cq.log_depth) - 1, ci0 = q->cq.ci;
    int want = (int)(q->seen < n ? q->seen : n);
    int got = want ? hcadrv_poll_cq(scn_drv(c), &q->cq, wc, want) : 0;
    if (got < 0) {
        rc = scn_mismatch(c, "poll_cq failed: %s", scn_errno_name(got));
        goto out;
    }
    uint64_t now = hca_dev_cycle(scn_dev(c));
    for (int i = 0; i < got; i++) {
        arrival[i] = (uint32_t)i < q->seen ? q->seen_cycle[(ci0 + (uint32_t)i) & mask] : now;
        if ((rec[i] = scn_find_wr(c, &wc[i]))) {
            rec[i]->done = 1;
            rec[i]->completion_cycle = arrival[i];
            rec[i]->status = wc[i].status;
        }
    }
    q->seen = q->seen > (uint32_t)got ? q->seen - (uint32_t)got : 0;
    for (int i = 0; i < got; i++) { /* the completions, pleasant to read */
        char b[256];
        fmt_wc(c, b, sizeof b, &wc[i]);
        if (rec[i])
            fprintf(scn_out(c), "  %s:%u poll_cq %s: %s  %" PRIu64 " cycles post to CQE (posted line %u)\n",
                    c->s->file, c->line, scn_sym(c, cq)->name, b, arrival[i] - rec[i]->post_cycle, rec[i]->line);
        else
            fprintf(scn_out(c), "  %s:%u poll_cq %s: %s  (no posted work request matches)\n", c->s->file, c->line,
                    scn_sym(c, cq)->name, b);
    }
    char why[256], all[1024] = "";
    for (int i = 0; i < got; i++) {
        char b[256];
        fmt_wc(c, b, sizeof b, &wc[i]);
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", b);
    }
    if ((size_t)got < n) {
        rc = scn_mismatch(c, "expected %zu completion%s on %s within %" PRIu64 " cycles, got %d%s%s", n,
                          n == 1 ? "" : "s", scn_sym(c, cq)->name, timeout, got, got ? ": " : "", all);
        goto out;
    }
    if (!any) {
        for (size_t i = 0; i < n; i++)
            if (cqe_differs(c, &x[i], &wc[i], rec[i] ? arrival[i] - rec[i]->post_cycle : 0, rec[i] != NULL, why,
                            sizeof why)) {
                char b[256];
                fmt_wc(c, b, sizeof b, &wc[i]);
                rc = scn_mismatch(c, "completion %zu of %zu: expected %s (%s)", i + 1, n, why, b);
                goto out;
            }
    } else {
        ok = calloc(n * n, 1);
        owner = malloc(n * sizeof *owner);
        unsigned char *seen = calloc(n, 1);
        if (!ok || !owner || !seen) {
            free(seen);
            rc = scn_bad(c, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                ok[i * n + j] = !cqe_differs(c, &x[i], &wc[j], rec[j] ? arrival[j] - rec[j]->post_cycle : 0,
                                             rec[j] != NULL, why, sizeof why);
        for (size_t j = 0; j < n; j++)
            owner[j] = -1;
        for (size_t i = 0; i < n && !rc; i++) {
            memset(seen, 0, n);
            if (!augment(i, n, ok, owner, seen)) {
                /* report expected i against the first completion it could not take */
                cqe_differs(c, &x[i], &wc[0], rec[0] ? arrival[0] - rec[0]->post_cycle : 0, rec[0] != NULL, why,
                            sizeof why);
                rc = scn_mismatch(c, "expected[%zu] matches no completion (in any order); got %s", i, all);
            }
        }
        free(seen);
    }
    if (!rc)
        scn_note(c, "%zu completion%s as expected", n, n == 1 ? "" : "s");
out:
    free(x);
    free(wc);
    free(arrival);
    free(rec);
    free(ok);
    free(owner);
    return rc;
}

static int op_expect_cq_empty(ctx_t *c, const json_value_t *o)
{
    int cq;
    uint64_t after = 0;
    int rc = scn_ref(c, o, "cq", 1, SYM_CQ, &cq);
    if (!rc)
        rc = scn_int(c, o, "after_cycles", 0, 0, 1ull << 40, &after);
    if (rc || !RUNNING)
        return rc;
    scn_advance(c, after);
    scn_watch(c);
    rt_obj_t *q = scn_obj(c, cq);
    if (!q->seen)
        return 0;
    hcadrv_wc_t wc;
    uint32_t slot = q->cq.ci & ((1u << q->cq.log_depth) - 1);
    uint64_t arrived = q->seen_cycle[slot];
    if (hcadrv_poll_cq(scn_drv(c), &q->cq, &wc, 1) != 1)
        return scn_mismatch(c, "expected %s empty, got a CQE the driver could not read", scn_sym(c, cq)->name);
    q->seen--;
    wr_rec_t *w = scn_find_wr(c, &wc);
    if (w) {
        w->done = 1;
        w->completion_cycle = arrived;
        w->status = wc.status;
    }
    char b[256];
    fmt_wc(c, b, sizeof b, &wc);
    return scn_mismatch(c, "expected %s empty, got %s (arrived at cycle %" PRIu64 ")", scn_sym(c, cq)->name, b,
                        arrived);
}

static int op_expect_qp_state(ctx_t *c, const json_value_t *o)
{
    int qp;
    unsigned state = 0;
    int rc = scn_ref(c, o, "qp", 1, SYM_QP, &qp);
    if (!rc)
        rc = scn_enum(c, o, "state", 1, hca_qp_state_name, HCA_QP_STATE_MAX, &state);
    if (rc || !RUNNING)
        return rc;
    unsigned got = 0;
    if ((rc = hcadrv_query_qp(scn_drv(c), &scn_obj(c, qp)->qp, &got)))
        return device_refused(c, rc, "QUERY_QP");
    if (got != state)
        return scn_mismatch(c, "expected %s in state %s, got %s", scn_sym(c, qp)->name, hca_qp_state_name(state),
                            name_or(hca_qp_state_name(got), "?"));
    return 0;
}

/* ================================================================ the op table */

const op_spec_t scn_ops[] = {
    {"device",
     "seed mpt_entries mtt_entries host_read_latency host_write_cost host_bytes_per_cycle link_latency "
     "link_bytes_per_cycle max_indirection peer_invalidation peer_latency",
     op_device},
    {"query_device", "expect", op_query_device},
    {"alloc_pd", "pd expect_error", op_alloc_pd},
    {"create_cq", "cq depth", op_create_cq},
    {"create_qp", "qp pd send_cq recv_cq sq_depth rq_depth rnr_retry rnr_timer mtu", op_create_qp},
    {"connect", "qp remote", op_connect},
    {"host_alloc", "buf size align fill", op_host_alloc},
    {"host_write", "buf offset hex", op_host_write},
    {"check_mem", "buf offset length hex same_as", op_check_mem},
    {"peer_client", "client page_size size requires_invalidation", op_peer_client},
    {"peer_alloc", "buf client size fill", op_peer_alloc},
    {"peer_invalidate", "client buf", op_peer_invalidate},
    {"peer_stats", "client expect", op_peer_stats},
    {"reg_mr", "mr pd buf offset length access iova page_shift expect_error", op_reg_mr},
    {"get_dma_mr", "mr pd expect_error", op_get_dma_mr},
    {"alloc_mr", "mr pd type max_page_list_len max_indir_list_len expect_error", op_alloc_mr},
    {"alloc_fast_reg_page_list", "pl len", op_alloc_fast_reg_page_list},
    {"free_fast_reg_page_list", "pl", op_free_fast_reg_page_list},
    {"set_page_list", "pl pages", op_set_page_list},
    {"update_fast_reg_key", "mr key", op_update_fast_reg_key},
    {"dereg_mr", "mr expect_error", op_dereg_mr},
    {"check_mr", "mr expect", op_check_mr},
    {"post_send",
     "qp wr_id opcode signaled fence expect_post sge invalidate remote_addr remote rkey mr page_list page_list_len "
     "page_shift iova length access key list",
     op_post_send},
    {"post_recv", "qp wr_id sge expect_post", op_post_recv},
    {"post_raw_wqe", "qp hex wr_id expect_post", op_post_raw_wqe},
    {"run", "cycles", op_run},
    {"poll_cq", "cq expect timeout_cycles any_order", op_poll_cq},
    {"expect_cq_empty", "cq after_cycles", op_expect_cq_empty},
    {"expect_qp_state", "qp state", op_expect_qp_state},
};
const size_t scn_nops = sizeof scn_ops / sizeof scn_ops[0];
