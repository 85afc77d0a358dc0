/* scn_ops_setup.c — the ops that set things up (SCENARIO.md "Setup", "Host and
 * peer memory"): the device's configuration, protection domains, CQs, QPs and
 * their connection and host buffers (peer memory: scn_ops_peer.c).
 *
 * Each handler reads its fields first (both passes), returns when validating
 * (c->run == NULL), then acts. See scn_int.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scn_int.h"

/* ================================================================ device, pd, cq, qp */

int scn_op_device(ctx_t *c, const json_value_t *o)
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
        {"max_indirection", 1, HCA_MAX_INDIRECTION, NULL},
        {"peer_latency", 0, 1000000, NULL},
        {"peer_bytes_per_cycle", 1, 4096, NULL},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        uint64_t v = 0;
        if (!json_get(o, keys[i].key))
            continue;
        int rc = scn_int(c, o, keys[i].key, keys[i].min, keys[i].max, &v);
        if (!rc && (!strcmp(keys[i].key, "mpt_entries") || !strcmp(keys[i].key, "mtt_entries")) && (v & (v - 1)))
            rc = scn_bad_field(c, keys[i].key, "%" PRIu64 " is not a power of two", v);
        if (rc)
            return rc;
        if (!RUNNING)
            continue;
        if (keys[i].feature)
            return scn_unavailable(c, keys[i].key, keys[i].feature);
        if ((rc = scn_device_option(c, keys[i].key, v)))
            return rc;
    }
    int b = 0;
    int rc = scn_bool(c, o, "peer_invalidation", &b);
    if (rc)
        return rc;
    if (RUNNING && json_get(o, "peer_invalidation"))
        return scn_device_option(c, "peer_invalidation", (uint64_t)b);
    return 0;
}

int scn_op_alloc_pd(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_bind(c, o, "pd", &id);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, id);
    rc = hcadrv_alloc_pd(scn_drv(c), &p->pd);
    if ((rc = scn_expect_rc(c, rc, want, "ALLOC_PD")))
        return rc;
    p->live = want == 0;
    scn_observe(c, "pd", "%u", p->pd);
    scn_note(c, "pd %u", p->pd);
    return 0;
}

int scn_op_create_cq(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    uint64_t depth = 64;
    int rc = scn_bind(c, o, "cq", &id);
    if (!rc)
        rc = scn_int(c, o, "depth", 1, 1u << HCA_QUEUE_LOG_MAX, &depth);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *q = scn_obj(c, id);
    rc = hcadrv_create_cq(scn_drv(c), (uint32_t)depth, &q->cq);
    if (want || rc)
        return want ? scn_expect_rc(c, rc, want, "CREATE_CQ") : scn_refused(c, rc, "CREATE_CQ");
    if (!(q->seen_cycle = calloc((size_t)1 << q->cq.log_depth, sizeof *q->seen_cycle)))
        return scn_bad(c, "out of memory");
    q->live = 1;
    scn_observe(c, "cqn", "%u", q->cq.cqn);
    scn_note(c, "cqn %u, %u entries", q->cq.cqn, 1u << q->cq.log_depth);
    return 0;
}

int scn_op_create_qp(ctx_t *c, const json_value_t *o)
{
    int id, pd, scq, rcq, want = 0;
    uint64_t sq = 64, rq = 64, retry = 7, timer = 1000, mtu = 0;
    int rc = scn_bind(c, o, "qp", &id);
    if (!rc)
        rc = scn_ref(c, o, "pd", &pd);
    if (!rc)
        rc = scn_ref(c, o, "send_cq", &scq);
    if (!rc)
        rc = scn_ref(c, o, "recv_cq", &rcq);
    if (!rc)
        rc = scn_int(c, o, "sq_depth", 1, 1u << HCA_QUEUE_LOG_MAX, &sq);
    if (!rc)
        rc = scn_int(c, o, "rq_depth", 1, 1u << HCA_QUEUE_LOG_MAX, &rq);
    if (!rc)
        rc = scn_int(c, o, "rnr_retry", 0, 7, &retry);
    if (!rc)
        rc = scn_int(c, o, "rnr_timer", 0, UINT32_MAX, &timer);
    if (!rc)
        rc = scn_int(c, o, "mtu", 256, 4096, &mtu);
    if (!rc && json_get(o, "mtu") && (mtu & (mtu - 1)))
        rc = scn_bad_field(c, "mtu", "%" PRIu64 " is not a power of two", mtu);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
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
    rc = hcadrv_create_qp(scn_drv(c), &a, &q->qp);
    if (want || rc)
        return want ? scn_expect_rc(c, rc, want, "CREATE_QP") : scn_refused(c, rc, "CREATE_QP");
    q->live = 1;
    scn_observe(c, "qpn", "%u", q->qp.qpn);
    scn_note(c, "qpn %u", q->qp.qpn);
    return 0;
}

int scn_op_connect(ctx_t *c, const json_value_t *o)
{
    int a, b, want = 0;
    int rc = scn_ref(c, o, "qp", &a);
    if (!rc)
        rc = scn_ref(c, o, "remote", &b);
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    rc = hcadrv_connect(scn_drv(c), &scn_obj(c, a)->qp, &scn_obj(c, b)->qp);
    if (!want && rc)
        return scn_refused(c, rc, "CONNECT_QP");
    return scn_expect_rc(c, rc, want, "CONNECT_QP");
}

/* ================================================================ lifecycle
 * A destroyed object's name stays bound; its handle's number becomes 0
 * (rt_obj_t.destroyed), so a later use is refused by the driver or the
 * device and is reported by the op that tried it. */

uint32_t scn_qpn(ctx_t *c, int id)
{
    const rt_obj_t *q = scn_obj(c, id);
    return q->destroyed ? q->number_was : q->qp.qpn;
}

int scn_op_modify_qp(ctx_t *c, const json_value_t *o)
{
    int qp, want = 0;
    unsigned state = 0;
    int rc = scn_ref(c, o, "qp", &qp);
    if (!rc)
        rc = scn_enum(c, o, "state", hca_qp_state_name, HCA_QP_STATE_MAX, &state);
    if (!rc && state != HCA_QP_STATE_RESET && state != HCA_QP_STATE_ERROR)
        rc = scn_bad_field(c, "state", "a QP is moved to RESET or ERROR (RTS is connect's)");
    if (!rc)
        rc = scn_errno(c, o, "expect_error", &want);
    if (rc || !RUNNING)
        return rc;
    rc = hcadrv_modify_qp(scn_drv(c), &scn_obj(c, qp)->qp, state);
    if (!want && rc)
        return scn_refused(c, rc, "MODIFY_QP");
    if ((rc = scn_expect_rc(c, rc, want, "MODIFY_QP")))
        return rc;
    if (!want)
        scn_note(c, "qpn %u -> %s", scn_qpn(c, qp), hca_qp_state_name(state));
    return 0;
}

/* What the destroy ops share: the expected errno, then mark the name
 * destroyed once the driver said yes. */
static int destroyed(ctx_t *c, int rc, int want, const char *what, rt_obj_t *x, uint32_t number)
{
    if (!want && rc)
        return scn_refused(c, rc, what);
    if ((rc = scn_expect_rc(c, rc, want, what)))
        return rc;
    if (!want) {
        x->destroyed = 1;
        x->number_was = number;
        scn_note(c, "number %u free", number);
    }
    return 0;
}

int scn_op_destroy_qp(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_ref_errno(c, o, "qp", &id, &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *q = scn_obj(c, id);
    const uint32_t n = q->qp.qpn;
    rc = hcadrv_destroy_qp(scn_drv(c), &q->qp);
    if (!rc)
        q->qp.qpn = 0;
    return destroyed(c, rc, want, "DESTROY_QP", q, n);
}

int scn_op_destroy_cq(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_ref_errno(c, o, "cq", &id, &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *q = scn_obj(c, id);
    const uint32_t n = q->cq.cqn;
    rc = hcadrv_destroy_cq(scn_drv(c), &q->cq);
    if (!rc)
        q->cq.cqn = 0;
    return destroyed(c, rc, want, "DESTROY_CQ", q, n);
}

int scn_op_dealloc_pd(ctx_t *c, const json_value_t *o)
{
    int id, want = 0;
    int rc = scn_ref_errno(c, o, "pd", &id, &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, id);
    const uint32_t n = p->pd;
    rc = hcadrv_dealloc_pd(scn_drv(c), n);
    if (!rc)
        p->pd = 0;
    return destroyed(c, rc, want, "DEALLOC_PD", p, n);
}

/* ================================================================ host memory */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fill a fresh buffer (kind as scn_fill reads it); each buffer's random
 * stream depends on the seed and its name only. */
int scn_fill_buffer(ctx_t *c, int id, unsigned kind, uint8_t byte)
{
    if (kind == 0)
        return 0; /* host memory maps zeroed pages */
    return scn_fill_range(c, id, 0, scn_obj(c, id)->size, kind, byte);
}

/* [from, from + len) of buffer id as a fill of the whole buffer would write
 * it: "random" is the buffer's own stream (seed and name), "pattern" the
 * byte's offset in the buffer. */
int scn_fill_range(ctx_t *c, int id, uint64_t from, uint64_t len, unsigned kind, uint8_t byte)
{
    rt_obj_t *b = scn_obj(c, id);
    const uint64_t end = from + len;
    const char *name = scn_sym(c, id)->name;
    uint64_t st = scn_seed(c);
    for (const char *p = name; *p; p++)
        st = (st ^ (unsigned char)*p) * 1099511628211ull;
    uint8_t chunk[4096];
    for (uint64_t off = 0; off < end; off += sizeof chunk) {
        size_t n = b->size - off < sizeof chunk ? (size_t)(b->size - off) : sizeof chunk;
        for (size_t i = 0; i < n; i++) {
            if (kind == 1) {
                if ((i & 7) == 0) {
                    uint64_t r = splitmix64(&st);
                    memcpy(chunk + i, &r, n - i < 8 ? n - i : 8);
                }
            } else
                chunk[i] = kind == 2 ? (uint8_t)(off + i) : kind == 3 ? byte : 0;
        }
        const uint64_t lo = off > from ? off : from, hi = off + n < end ? off + n : end;
        if (lo < hi && scn_mem_write(c, b->addr + lo, chunk + (lo - off), (size_t)(hi - lo)))
            return scn_bad(c, "%s memory refused the fill", scn_sym(c, id)->peer ? "peer" : "host");
    }
    return 0;
}

int scn_op_host_alloc(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t size = 0, align = 4096;
    unsigned fill = 0;
    uint8_t byte = 0;
    int rc = scn_bind(c, o, "buf", &id);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1ull << 30, &size);
    if (!rc)
        rc = scn_int(c, o, "align", 1, 1ull << 30, &align);
    if (!rc && (align & (align - 1)))
        rc = scn_bad_field(c, "align", "%" PRIu64 " is not a power of two", align);
    if (!rc)
        rc = scn_fill(c, o, "fill", &fill, &byte);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = size;
        return 0;
    }
    rt_obj_t *b = scn_obj(c, id);
    if ((rc = scn_mem_alloc(c, size, align, &b->addr)))
        return scn_bad(c, "host memory: %s", strerror(-rc));
    b->size = size;
    b->live = 1;
    scn_note(c, "bus address 0x%" PRIx64 ", %" PRIu64 " bytes", b->addr, size);
    return scn_fill_buffer(c, id, fill, byte);
}

/* host_fill: a range of a buffer refilled (extension: what host_write does
 * without spelling the bytes). */
int scn_op_host_fill(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t off = 0, len = 0;
    unsigned fill = 0;
    uint8_t byte = 0;
    int rc = scn_ref(c, o, "buf", &id);
    if (!rc)
        rc = scn_int(c, o, "offset", 0, UINT64_MAX, &off);
    if (!rc) {
        const uint64_t size = scn_sym(c, id)->size;
        len = off < size ? size - off : 0; /* default: the rest of the buffer */
        rc = scn_int(c, o, "length", 0, 1ull << 30, &len);
    }
    if (!rc)
        rc = scn_buf_range(c, id, "length", off, len);
    if (!rc)
        rc = scn_fill(c, o, "fill", &fill, &byte);
    if (rc || !RUNNING)
        return rc;
    return scn_fill_range(c, id, off, len, fill, byte);
}

int scn_op_host_write(ctx_t *c, const json_value_t *o)
{
    int id;
    uint64_t off = 0;
    uint8_t *bytes = NULL;
    size_t n = 0;
    int rc = scn_ref(c, o, "buf", &id);
    if (!rc)
        rc = scn_int(c, o, "offset", 0, UINT64_MAX, &off);
    if (!rc)
        rc = scn_hex(c, o, "hex", &bytes, &n);
    if (!rc)
        rc = scn_buf_range(c, id, "hex", off, n);
    if (!rc && RUNNING) {
        if (scn_mem_write(c, scn_obj(c, id)->addr + off, bytes, n))
            rc = scn_bad(c, "%s memory refused the write", scn_sym(c, id)->peer ? "peer" : "host");
    }
    free(bytes);
    return rc;
}
