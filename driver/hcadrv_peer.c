/* hcadrv_peer.c — the peer memory broker (hcadrv_peer.h): clients, their MRs,
 * the invalidate callback, and the window client.
 *
 * Records live in fixed arrays allocated once, so a pointer stays good across
 * the device waits in which nested calls (a callback, a dereg) may run; a
 * record is looked up again by its ticket after every wait.
 */
#include "hcadrv_peer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hcadrv_int.h"

/* Peer MRs one driver holds. */
#define PEER_MRS_MAX 4096u

typedef struct peer_cl {
    int used;
    hcadrv_peer_client_t c;
    hcadrv_peer_stats_t st;
    unsigned nmrs; /* MRs over its memory, alive */
    hcadrv_t *drv;
} peer_cl_t;

/* One MR over peer memory (the seed's umem). */
typedef struct peer_mr {
    int used;
    peer_cl_t *cl;
    void *cctx;
    uint64_t ticket; /* core_context: generation << 32 | (index + 1) */
    uint32_t lkey;
    uint32_t npages;
    uint64_t page_size;
    int mapped;        /* pinned and mapped: unmap and put still owed, exactly once */
    int registering;   /* its CREATE_MKEY is waiting for the device */
    int deregistering; /* its DESTROY_MKEY is */
    int invalidating;  /* its INVALIDATE_MKEY is */
    int revoked;       /* the client took the pages back while registering */
} peer_mr_t;

struct drv_peer {
    peer_cl_t cl[HCADRV_PEER_CLIENTS_MAX];
    peer_mr_t mr[PEER_MRS_MAX];
    uint32_t gen;
};

static drv_peer_t *state(hcadrv_t *drv, int create)
{
    drv_peer_t **p = &drv->peer;
    if (!*p && create)
        *p = calloc(1, sizeof **p);
    return *p;
}

void drv_peer_free(hcadrv_t *drv)
{
    free(drv->peer);
    drv->peer = NULL;
}

static peer_mr_t *mr_of_ticket(drv_peer_t *P, uint64_t ticket)
{
    const uint64_t i = (ticket & 0xffffffffu) - 1;
    if (!P || i >= PEER_MRS_MAX || !P->mr[i].used || P->mr[i].ticket != ticket)
        return NULL;
    return &P->mr[i];
}

/* Unmap and put the pages, once. */
static void release_pages(peer_mr_t *r)
{
    if (!r->mapped)
        return;
    r->mapped = 0;
    const hcadrv_peer_client_ops_t *ops = r->cl->c.ops;
    ops->dma_unmap(r->cctx);
    r->cl->st.num_dereg_pages += r->npages;
    r->cl->st.num_dereg_bytes += (uint64_t)r->npages * r->page_size;
    ops->put_pages(r->cctx);
    r->cl->st.num_dealloc_mrs++;
}

static void mr_free(peer_mr_t *r)
{
    r->cl->c.ops->release(r->cctx);
    r->cl->nmrs--;
    memset(r, 0, sizeof *r);
}

/* The invalidate callback: returns when the device can no longer reach the
 * pages of the registration `ticket`. */
static int peer_invalidate(void *reg_handle, uint64_t ticket)
{
    peer_cl_t *cl = reg_handle;
    if (!cl || !cl->used)
        return -EINVAL;
    hcadrv_t *drv = cl->drv;
    drv_peer_t *P = state(drv, 0);
    peer_mr_t *r = mr_of_ticket(P, ticket);
    if (!r || r->cl != cl)
        return 0; /* deregistered already: nothing can reach the pages */
    cl->st.num_free_callbacks++;
    if (r->registering) {
        /* reg_mr has not returned: nobody holds the key to use it. reg_mr
         * invalidates the new MR and puts the pages once CREATE_MKEY answers. */
        r->revoked = 1;
        return hcadrv_cmd_settle(drv);
    }
    if (r->deregistering || r->invalidating) {
        /* A DESTROY_MKEY / INVALIDATE_MKEY of this MR waits for its answer: once
         * it has it, its fence holds; then the pages go, once. */
        int rc = hcadrv_cmd_settle(drv);
        if ((r = mr_of_ticket(P, ticket)) != NULL && !rc)
            release_pages(r);
        return rc;
    }
    if (!r->mapped)
        return 0; /* invalidated before: fenced then */
    r->invalidating = 1;
    const uint32_t key = r->lkey;
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_INVALIDATE_MKEY, 0, 0, key, NULL);
    if ((r = mr_of_ticket(P, ticket)) == NULL)
        return 0; /* deregistered during the wait: DESTROY_MKEY fenced it and put the pages */
    r->invalidating = 0;
    if (rc)
        return rc;
    release_pages(r);
    return 0;
}

int hcadrv_peer_register(hcadrv_t *drv, const hcadrv_peer_client_t *client, void **reg_handle,
                         hcadrv_peer_invalidate_t *invalidate)
{
    if (!drv || !client || !reg_handle || !client->ops || !client->name[0] ||
        !memchr(client->name, 0, sizeof client->name) || !memchr(client->version, 0, sizeof client->version))
        return -EINVAL;
    const hcadrv_peer_client_ops_t *o = client->ops;
    if (!o->acquire || !o->get_pages || !o->dma_map || !o->dma_unmap || !o->put_pages || !o->get_page_size ||
        !o->release)
        return -EINVAL;
    drv_peer_t *P = state(drv, 1);
    if (!P)
        return -ENOMEM;
    peer_cl_t *free_cl = NULL;
    for (unsigned i = 0; i < HCADRV_PEER_CLIENTS_MAX; i++) {
        if (P->cl[i].used && !strcmp(P->cl[i].c.name, client->name))
            return -EEXIST;
        if (!P->cl[i].used && !free_cl)
            free_cl = &P->cl[i];
    }
    if (!free_cl)
        return -ENOSPC;
    *free_cl = (peer_cl_t){.used = 1, .c = *client, .drv = drv};
    *reg_handle = free_cl;
    if (invalidate)
        *invalidate = client->requires_invalidation ? peer_invalidate : NULL;
    return 0;
}

static peer_cl_t *client_of(hcadrv_t *drv, const void *h)
{
    drv_peer_t *P = drv ? state(drv, 0) : NULL;
    if (!P || (const char *)h < (const char *)P->cl || (const char *)h >= (const char *)(P->cl + HCADRV_PEER_CLIENTS_MAX))
        return NULL;
    peer_cl_t *cl = &P->cl[(const peer_cl_t *)h - P->cl];
    return cl == h && cl->used ? cl : NULL;
}

int hcadrv_peer_unregister(hcadrv_t *drv, void *reg_handle)
{
    peer_cl_t *cl = client_of(drv, reg_handle);
    if (!cl)
        return -EINVAL;
    if (cl->nmrs)
        return -EBUSY;
    memset(cl, 0, sizeof *cl);
    return 0;
}

int hcadrv_peer_get_stats(hcadrv_t *drv, const void *reg_handle, hcadrv_peer_stats_t *st)
{
    peer_cl_t *cl = client_of(drv, reg_handle);
    if (!cl || !st)
        return -EINVAL;
    *st = cl->st;
    return 0;
}

const hcadrv_peer_client_t *hcadrv_peer_client_of(const void *reg_handle)
{
    const peer_cl_t *cl = reg_handle;
    return cl && cl->used ? &cl->c : NULL;
}

int drv_peer_reg_mr(hcadrv_t *drv, uint32_t pd, uint64_t addr, uint64_t length, uint64_t iova, uint32_t access,
                    hcadrv_mr_t *mr)
{
    drv_peer_t *P = state(drv, 0);
    if (!P)
        return -ENOENT;
    peer_cl_t *cl = NULL;
    void *cctx = NULL;
    for (unsigned i = 0; i < HCADRV_PEER_CLIENTS_MAX && !cl; i++) {
        if (!P->cl[i].used)
            continue;
        int rc = P->cl[i].c.ops->acquire(P->cl[i].c.peer, addr, length, &cctx);
        if (rc < 0)
            return rc;
        if (rc == 1)
            cl = &P->cl[i];
    }
    if (!cl)
        return -ENOENT;
    const hcadrv_peer_client_ops_t *ops = cl->c.ops;
    int rc = 0;
    if (cl->c.requires_invalidation) {
        const hcadrv_device_attr_t *a;
        rc = drv_dev_attr(drv, &a);
        if (!rc && !a->peer_memory)
            rc = -EOPNOTSUPP; /* the device cannot honour the invalidate callback */
    }
    const uint64_t ps = rc ? 0 : ops->get_page_size(cctx);
    unsigned shift = 0;
    while (shift < 64 && (1ull << shift) < ps)
        shift++;
    /* Pages of the client's size the range touches: refused before anything is pinned. */
    const uint64_t want = rc ? 0 : ((addr & (ps - 1)) + length + ps - 1) >> shift;
    if (!rc && (shift < HCA_PAGE_SHIFT_MIN || shift > HCA_PAGE_SHIFT_MAX || (1ull << shift) != ps ||
                (addr & (ps - 1)) != (iova & (ps - 1)) || want > HCA_MAX_REG_PAGES))
        rc = -EINVAL;
    peer_mr_t *r = NULL;
    for (uint32_t i = 0; !rc && i < PEER_MRS_MAX && !r; i++)
        if (!P->mr[i].used)
            r = &P->mr[i];
    if (!rc && !r)
        rc = -ENOMEM;
    if (rc) {
        ops->release(cctx);
        return rc;
    }
    const uint64_t ticket = (uint64_t)++P->gen << 32 | (uint64_t)(r - P->mr + 1);
    *r = (peer_mr_t){.used = 1, .cl = cl, .cctx = cctx, .ticket = ticket, .page_size = ps};
    cl->nmrs++;
    const int write = !!(access & (HCA_ACCESS_LOCAL_WRITE | HCA_ACCESS_REMOTE_WRITE | HCA_ACCESS_REMOTE_ATOMIC));
    if ((rc = ops->get_pages(cctx, addr, length, write, ticket))) {
        mr_free(r);
        return rc;
    }
    cl->st.num_alloc_mrs++;
    uint64_t *pages = malloc(8 * want);
    uint32_t n = 0;
    rc = pages ? ops->dma_map(cctx, pages, (uint32_t)want, &n) : -ENOMEM;
    if (!rc) {
        r->mapped = 1;
        r->npages = n;
        cl->st.num_reg_pages += n;
        cl->st.num_reg_bytes += (uint64_t)n * ps;
        if (n != want)
            rc = -EIO; /* the client mapped other pages than the range holds */
    } else {
        ops->put_pages(cctx);
        cl->st.num_dealloc_mrs++;
    }
    if (!rc) {
        r->registering = 1;
        rc = drv_reg_pages(drv, pd, pages, n, shift, iova, length, access, mr);
        r = mr_of_ticket(P, ticket); /* still ours: nothing frees a registering record */
        r->registering = 0;
    }
    free(pages);
    if (rc) {
        release_pages(r);
        mr_free(r);
        return rc;
    }
    r->lkey = mr->lkey;
    mr->peer = (uint32_t)(ticket & 0xffffffffu);
    if (r->revoked) {
        /* Revoked before the key was handed out: fence the new MR now, then
         * the pages go (the callback left them to us). */
        int irc = hcadrv_cmd(drv, HCA_CMD_OP_INVALIDATE_MKEY, 0, 0, r->lkey, NULL);
        if ((r = mr_of_ticket(P, ticket)) != NULL && !irc)
            release_pages(r);
    }
    return 0;
}

int drv_peer_dereg_mr(hcadrv_t *drv, hcadrv_mr_t *mr)
{
    drv_peer_t *P = state(drv, 0);
    const uint32_t i = mr->peer - 1;
    if (!P || i >= PEER_MRS_MAX || !P->mr[i].used || P->mr[i].lkey != mr->lkey || P->mr[i].deregistering)
        return -EINVAL;
    peer_mr_t *r = &P->mr[i];
    const uint64_t ticket = r->ticket;
    r->deregistering = 1;
    /* hcadrv_cmd lets a pending INVALIDATE_MKEY of this MR finish first. */
    int rc = hcadrv_cmd(drv, HCA_CMD_OP_DESTROY_MKEY, 0, 0, mr->lkey, NULL);
    r = mr_of_ticket(P, ticket);
    r->deregistering = 0;
    if (rc)
        return rc;
    release_pages(r);
    mr_free(r);
    mr->peer = 0;
    return 0;
}

/* ---------------------------------------------------------------- the window client */

#define WINDOW_REGS_MAX 1024u

typedef struct win_reg {
    int used, pinned, mapped;
    uint64_t addr, size, ticket;
    hcadrv_peer_window_t *w;
} win_reg_t;

struct hcadrv_peer_window {
    hcadrv_t *drv;
    void *handle;
    hcadrv_peer_invalidate_t invalidate;
    uint64_t base, size, page_size;
    win_reg_t reg[WINDOW_REGS_MAX];
};

static int win_acquire(void *peer, uint64_t addr, uint64_t size, void **cctx)
{
    hcadrv_peer_window_t *w = peer;
    if (addr < w->base || size > w->size || addr - w->base > w->size - size)
        return 0;
    for (unsigned i = 0; i < WINDOW_REGS_MAX; i++)
        if (!w->reg[i].used) {
            w->reg[i] = (win_reg_t){.used = 1, .addr = addr, .size = size, .w = w};
            *cctx = &w->reg[i];
            return 1;
        }
    return -ENOMEM;
}

static int win_get_pages(void *cctx, uint64_t addr, uint64_t size, int write, uint64_t core_context)
{
    win_reg_t *g = cctx;
    (void)write;
    if (addr != g->addr || size != g->size || g->pinned)
        return -EINVAL;
    g->pinned = 1;
    g->ticket = core_context;
    return 0;
}

static int win_dma_map(void *cctx, uint64_t *pages, uint32_t max, uint32_t *npages)
{
    win_reg_t *g = cctx;
    const uint64_t ps = g->w->page_size, first = g->addr & ~(ps - 1);
    const uint64_t n = (g->addr + g->size - first + ps - 1) / ps;
    if (!g->pinned || g->mapped || n > max)
        return -EINVAL;
    for (uint64_t i = 0; i < n; i++)
        pages[i] = first + i * ps;
    *npages = (uint32_t)n;
    g->mapped = 1;
    return 0;
}

static int win_dma_unmap(void *cctx)
{
    win_reg_t *g = cctx;
    if (!g->mapped)
        return -EINVAL;
    g->mapped = 0;
    return 0;
}

static void win_put_pages(void *cctx) { ((win_reg_t *)cctx)->pinned = 0; }
static uint64_t win_page_size(void *cctx) { return ((win_reg_t *)cctx)->w->page_size; }
static void win_release(void *cctx) { memset(cctx, 0, sizeof(win_reg_t)); }

static const hcadrv_peer_client_ops_t window_ops = {win_acquire, win_get_pages, win_dma_map, win_dma_unmap,
                                                    win_put_pages, win_page_size, win_release};

int hcadrv_peer_window_create(hcadrv_peer_window_t **out, hcadrv_t *drv, const char *name, uint64_t base,
                              uint64_t size, uint64_t page_size, int requires_invalidation)
{
    if (!out || !drv || !name || !size || page_size < (1ull << HCA_PAGE_SHIFT_MIN) ||
        page_size > (1ull << HCA_PAGE_SHIFT_MAX) || (page_size & (page_size - 1)) || (base & (page_size - 1)) ||
        base + (size - 1) < base || strlen(name) >= HCADRV_PEER_NAME_MAX)
        return -EINVAL;
    hcadrv_peer_window_t *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    *w = (hcadrv_peer_window_t){.drv = drv, .base = base, .size = size, .page_size = page_size};
    hcadrv_peer_client_t c;
    memset(&c, 0, sizeof c);
    strcpy(c.name, name);
    strcpy(c.version, "1.0");
    c.ops = &window_ops;
    c.peer = w;
    c.requires_invalidation = requires_invalidation;
    int rc = hcadrv_peer_register(drv, &c, &w->handle, &w->invalidate);
    if (rc) {
        free(w);
        return rc;
    }
    *out = w;
    return 0;
}

int hcadrv_peer_window_destroy(hcadrv_peer_window_t *w)
{
    if (!w)
        return 0;
    int rc = hcadrv_peer_unregister(w->drv, w->handle);
    if (rc)
        return rc;
    free(w);
    return 0;
}

void hcadrv_peer_window_free(hcadrv_peer_window_t *w)
{
    free(w);
}

int hcadrv_peer_window_revoke(hcadrv_peer_window_t *w, uint64_t addr, uint64_t len, unsigned *ncallbacks)
{
    if (ncallbacks)
        *ncallbacks = 0;
    if (!w || !len || addr + (len - 1) < addr)
        return -EINVAL;
    if (!w->invalidate)
        return -EOPNOTSUPP;
    int first_rc = 0;
    /* A callback may run nested calls that end registrations: look at each
     * slot afresh. */
    for (unsigned i = 0; i < WINDOW_REGS_MAX; i++) {
        const win_reg_t *g = &w->reg[i];
        if (!g->used || !g->pinned || g->addr > addr + (len - 1) || addr > g->addr + (g->size - 1))
            continue;
        int rc = w->invalidate(w->handle, g->ticket);
        if (ncallbacks)
            (*ncallbacks)++;
        if (rc && !first_rc)
            first_rc = rc;
    }
    return first_rc;
}

unsigned hcadrv_peer_window_pinned(const hcadrv_peer_window_t *w)
{
    unsigned n = 0;
    for (unsigned i = 0; w && i < WINDOW_REGS_MAX; i++)
        n += w->reg[i].used && w->reg[i].pinned;
    return n;
}

void *hcadrv_peer_window_handle(const hcadrv_peer_window_t *w)
{
    return w ? w->handle : NULL;
}
