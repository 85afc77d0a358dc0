/* scn_ops_peer.c — peer memory (SCENARIO.md "Host and peer memory"): a peer
 * device (sim/mem/peermem.h) behind its own bus window per client, its peer
 * memory client registered with the driver (hcadrv_peer.h), buffers in it,
 * revocation through the driver's invalidate callback, and the counters.
 *
 * Each handler reads its fields first (both passes), returns when validating
 * (c->run == NULL), then acts. See scn_int.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "busmap.h"
#include "scn_int.h"

/* Where the peer devices' windows sit on the bus: far above host memory
 * (HOSTMEM_ALLOC_BASE), one window per client, each room for the largest
 * client the schema allows (2^40 bytes). */
#define PEER_WINDOW_BASE 0x100000000000ull
#define PEER_WINDOW_STRIDE (1ull << 41)

int scn_op_peer_client(ctx_t *c, const json_value_t *o)
{
    int id, inv = 0;
    uint64_t ps = 0, size = 0;
    int rc = scn_bind(c, o, "client", &id);
    if (!rc)
        rc = scn_int(c, o, "page_size", 4096, 1ull << 30, &ps);
    if (!rc && (ps & (ps - 1)))
        rc = scn_bad_field(c, "page_size", "%" PRIu64 " is not a power of two", ps);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1ull << 40, &size);
    if (!rc)
        rc = scn_bool(c, o, "requires_invalidation", &inv);
    if (rc || !RUNNING)
        return rc;
    size_t k = 0; /* clients made before this one: the window's place */
    for (int i = 0; i < id; i++)
        k += scn_obj(c, i)->pm != NULL;
    if (k >= BUSMAP_MAX_WINDOWS)
        return scn_bad(c, "more than %u peer clients", BUSMAP_MAX_WINDOWS);
    rt_obj_t *cl = scn_obj(c, id);
    const uint64_t base = PEER_WINDOW_BASE + k * PEER_WINDOW_STRIDE;
    const uint64_t wsize = (size + ps - 1) & ~(ps - 1); /* whole pages of the client */
    const bus_timing_t t = scn_peer_timing(c);
    if ((rc = peermem_create(&cl->pm, base, wsize, &t)))
        return scn_bad(c, "peer memory: %s", strerror(-rc));
    if ((rc = hca_dev_map_window(scn_dev(c), base, wsize, peermem_bus(cl->pm))))
        return scn_bad(c, "the device's bus map refused the peer window: %s", strerror(-rc));
    if ((rc = hcadrv_peer_window_create(&cl->win, scn_drv(c), scn_sym(c, id)->name, base, wsize, ps, inv)))
        return scn_refused(c, rc, "registering the peer memory client");
    cl->live = 1;
    cl->page_size = ps;
    scn_note(c, "window 0x%" PRIx64 "..0x%" PRIx64 ", pages of %" PRIu64 " bytes%s", base, base + wsize - 1, ps,
             inv ? ", requires invalidation" : "");
    return 0;
}

int scn_op_peer_alloc(ctx_t *c, const json_value_t *o)
{
    int id, cl;
    uint64_t size = 0;
    unsigned fill = 0;
    uint8_t byte = 0;
    int rc = scn_bind(c, o, "buf", &id);
    if (!rc)
        rc = scn_ref(c, o, "client", &cl);
    if (!rc)
        rc = scn_int(c, o, "size", 1, 1ull << 30, &size);
    if (!rc)
        rc = scn_fill(c, o, "fill", &fill, &byte);
    if (rc)
        return rc;
    if (!RUNNING) {
        scn_sym(c, id)->size = size;
        scn_sym(c, id)->peer = 1;
        return 0;
    }
    rt_obj_t *b = scn_obj(c, id), *p = scn_obj(c, cl);
    if (!p->pm)
        return scn_bad(c, "peer client \"%s\" was not created", scn_sym(c, cl)->name);
    /* Buffers start on a page of the client, as a GPU allocator's do. */
    if ((rc = peermem_alloc(p->pm, size, p->page_size, &b->addr)))
        return scn_mismatch(c, "peer memory of \"%s\" has no room for %" PRIu64 " bytes (%s)", scn_sym(c, cl)->name,
                            size, strerror(-rc));
    b->size = size;
    b->live = 1;
    scn_note(c, "peer bus address 0x%" PRIx64 ", %" PRIu64 " bytes", b->addr, size);
    return scn_fill_buffer(c, id, fill, byte);
}

int scn_op_peer_invalidate(ctx_t *c, const json_value_t *o)
{
    int cl, b;
    int rc = scn_ref(c, o, "client", &cl);
    if (!rc)
        rc = scn_ref(c, o, "buf", &b);
    if (!rc && !RUNNING && !scn_sym(c, b)->peer)
        rc = scn_bad_field(c, "buf", "\"%s\" is host memory, not a peer buffer", scn_sym(c, b)->name);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, cl), *buf = scn_obj(c, b);
    if (!p->win)
        return scn_bad(c, "peer client \"%s\" is not registered", scn_sym(c, cl)->name);
    if (!peermem_holds(p->pm, buf->addr, buf->size))
        return scn_bad_field(c, "buf", "\"%s\" is not in the memory of \"%s\"", scn_sym(c, b)->name,
                             scn_sym(c, cl)->name);
    const uint64_t t0 = scn_cycle(c);
    unsigned n = 0;
    rc = hcadrv_peer_window_revoke(p->win, buf->addr, buf->size, &n);
    if (rc == -EOPNOTSUPP)
        return scn_mismatch(c, "peer client \"%s\" requires no invalidation: it cannot revoke", scn_sym(c, cl)->name);
    if (rc)
        return scn_mismatch(c, "the invalidate callback failed: %s", strerror(-rc));
    /* Every callback has returned: from now on no DMA may touch those pages. */
    protcheck_range_revoke(hca_dev_protcheck(scn_dev(c)), scn_cycle(c), buf->addr, buf->size, "peer_invalidate");
    scn_cover_revoked(scn_cover_of(c), buf->addr, buf->size);
    buf->revoked = 1;
    scn_observe(c, "callbacks", "%u", n);
    scn_note(c, "%u callback%s, returned after %" PRIu64 " cycles", n, n == 1 ? "" : "s", scn_cycle(c) - t0);
    return 0;
}

int scn_op_peer_unregister(ctx_t *c, const json_value_t *o)
{
    int cl, want = 0;
    int rc = scn_ref_errno(c, o, "client", &cl, &want);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, cl);
    if (!p->win)
        return scn_bad(c, "peer client \"%s\" is not registered", scn_sym(c, cl)->name);
    rc = hcadrv_peer_window_destroy(p->win);
    if (!rc)
        p->win = NULL;
    return scn_expect_rc(c, rc, want, "peer_unregister");
}

int scn_op_peer_stats(ctx_t *c, const json_value_t *o)
{
    int cl;
    int rc = scn_ref(c, o, "client", &cl);
    const json_value_t *e = NULL;
    if (!rc)
        e = scn_object_field(c, o, "expect", &rc);
    if (rc)
        return rc;
    scn_frame_t fr;
    scn_enter(c, "expect", 0, 0, &fr);
    rc = scn_fields_known(c, e);
    for (size_t i = 0; !rc && i < e->u.object.n; i++) {
        uint64_t v;
        rc = scn_int_value(c, e->u.object.members[i].value, e->u.object.members[i].key, 0, UINT64_MAX, &v);
    }
    scn_leave(c, &fr);
    if (rc || !RUNNING)
        return rc;
    rt_obj_t *p = scn_obj(c, cl);
    hcadrv_peer_stats_t st;
    if (!p->win || hcadrv_peer_get_stats(scn_drv(c), hcadrv_peer_window_handle(p->win), &st))
        return scn_bad(c, "peer client \"%s\" is not registered", scn_sym(c, cl)->name);
    const struct {
        const char *name;
        uint64_t v;
    } got[] = {{"num_alloc_mrs", st.num_alloc_mrs},     {"num_dealloc_mrs", st.num_dealloc_mrs},
               {"num_reg_pages", st.num_reg_pages},     {"num_dereg_pages", st.num_dereg_pages},
               {"num_reg_bytes", st.num_reg_bytes},     {"num_dereg_bytes", st.num_dereg_bytes},
               {"num_free_callbacks", st.num_free_callbacks}};
    for (size_t k = 0; k < sizeof got / sizeof got[0]; k++)
        scn_observe(c, got[k].name, "%" PRIu64, got[k].v);
    for (size_t i = 0; i < e->u.object.n; i++) {
        uint64_t want = 0;
        scn_int_value(c, e->u.object.members[i].value, e->u.object.members[i].key, 0, UINT64_MAX, &want);
        for (size_t k = 0; k < sizeof got / sizeof got[0]; k++)
            if (!strcmp(got[k].name, e->u.object.members[i].key) && got[k].v != want)
                return scn_mismatch(c, "%s: expected %" PRIu64 ", got %" PRIu64, got[k].name, want, got[k].v);
    }
    return 0;
}
