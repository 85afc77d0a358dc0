/* hostmem.c — sparse host memory: an open-addressing hash of 4 KiB pages. */
#include "hostmem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct page_slot {
    uint64_t pfn;  /* page number + 1; 0 marks an empty slot */
    uint8_t *data; /* NULL with pfn != 0: a tombstone left by unmap */
} page_slot_t;

/* Page data comes from blocks of HOSTMEM_BLOCK_PAGES pages, calloc'd (large:
 * fresh zero pages the kernel maps only when first written, so a mapped
 * page nobody writes costs no page fault); an unmapped page's data is kept
 * on a free list and zeroed when mapped again. */
#define HOSTMEM_BLOCK_PAGES 64u

typedef struct page_block {
    struct page_block *next;
    uint8_t *data; /* HOSTMEM_BLOCK_PAGES pages */
} page_block_t;

struct hostmem {
    page_slot_t *slots;
    size_t cap;  /* power of two */
    size_t used; /* live pages + tombstones */
    uint64_t next_alloc;
    page_block_t *blocks; /* every block, for destroy */
    unsigned block_used;  /* pages of blocks' head handed out */
    void **free_pages;    /* unmapped pages' data (a list through their first word) */
};

static size_t hash_pfn(uint64_t pfn, size_t cap)
{
    pfn *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing spreads consecutive pages */
    return (size_t)(pfn >> 17) & (cap - 1);
}

/* Slot holding pfn, or NULL. */
static page_slot_t *find(const hostmem_t *m, uint64_t pfn)
{
    for (size_t i = hash_pfn(pfn, m->cap);; i = (i + 1) & (m->cap - 1)) {
        page_slot_t *s = &m->slots[i];
        if (s->pfn == 0)
            return NULL;
        if (s->pfn == pfn + 1)
            return s->data ? s : NULL;
    }
}

static int grow(hostmem_t *m)
{
    size_t ncap = m->cap * 2;
    page_slot_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -ENOMEM;
    size_t used = 0;
    for (size_t i = 0; i < m->cap; i++) {
        page_slot_t *s = &m->slots[i];
        if (!s->data)
            continue; /* tombstones are dropped */
        size_t j = hash_pfn(s->pfn - 1, ncap);
        while (ns[j].pfn)
            j = (j + 1) & (ncap - 1);
        ns[j] = *s;
        used++;
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
    m->used = used;
    return 0;
}

int hostmem_create(hostmem_t **out)
{
    hostmem_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->cap = 1024;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots) {
        free(m);
        return -ENOMEM;
    }
    m->next_alloc = HOSTMEM_ALLOC_BASE;
    *out = m;
    return 0;
}

void hostmem_destroy(hostmem_t *m)
{
    if (!m)
        return;
    for (page_block_t *b = m->blocks, *next; b; b = next) {
        next = b->next;
        free(b->data);
        free(b);
    }
    free(m->slots);
    free(m);
}

/* A zeroed page's data. */
static uint8_t *page_new(hostmem_t *m)
{
    if (m->free_pages) {
        void **p = m->free_pages;
        m->free_pages = *p;
        memset(p, 0, HOSTMEM_PAGE_SIZE);
        return (uint8_t *)p;
    }
    if (!m->blocks || m->block_used == HOSTMEM_BLOCK_PAGES) {
        page_block_t *b = malloc(sizeof *b);
        uint8_t *data = calloc(HOSTMEM_BLOCK_PAGES, HOSTMEM_PAGE_SIZE);
        if (!b || !data) {
            free(b);
            free(data);
            return NULL;
        }
        *b = (page_block_t){m->blocks, data};
        m->blocks = b;
        m->block_used = 0;
    }
    return m->blocks->data + (size_t)m->block_used++ * HOSTMEM_PAGE_SIZE;
}

static void page_free(hostmem_t *m, uint8_t *data)
{
    void **p = (void **)(void *)data;
    *p = m->free_pages;
    m->free_pages = p;
}

static int map_page(hostmem_t *m, uint64_t pfn)
{
    if (find(m, pfn))
        return 0;
    if ((m->used + 1) * 4 > m->cap * 3) {
        int rc = grow(m);
        if (rc)
            return rc;
    }
    uint8_t *data = page_new(m);
    if (!data)
        return -ENOMEM;
    size_t i = hash_pfn(pfn, m->cap);
    while (m->slots[i].pfn && m->slots[i].pfn != pfn + 1)
        i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].pfn)
        m->used++;
    m->slots[i] = (page_slot_t){.pfn = pfn + 1, .data = data};
    return 0;
}

int hostmem_map(hostmem_t *m, uint64_t addr, uint64_t len)
{
    if (!m || (len && addr + len - 1 < addr))
        return -EINVAL;
    if (!len)
        return 0;
    for (uint64_t pfn = addr >> HOSTMEM_PAGE_SHIFT; pfn <= (addr + len - 1) >> HOSTMEM_PAGE_SHIFT; pfn++) {
        int rc = map_page(m, pfn);
        if (rc)
            return rc;
    }
    return 0;
}

int hostmem_unmap(hostmem_t *m, uint64_t addr, uint64_t len)
{
    if (!m || (len && addr + len - 1 < addr))
        return -EINVAL;
    if (!len)
        return 0;
    for (uint64_t pfn = addr >> HOSTMEM_PAGE_SHIFT; pfn <= (addr + len - 1) >> HOSTMEM_PAGE_SHIFT; pfn++) {
        page_slot_t *s = find(m, pfn);
        if (s) {
            page_free(m, s->data);
            s->data = NULL; /* tombstone keeps probe chains intact */
        }
    }
    return 0;
}

int hostmem_alloc(hostmem_t *m, uint64_t size, uint64_t align, uint64_t *addr)
{
    if (!m || !addr || !size || !align || (align & (align - 1)))
        return -EINVAL;
    uint64_t a = (m->next_alloc + align - 1) & ~(align - 1);
    if (a < m->next_alloc || a + size < a)
        return -ENOMEM;
    int rc = hostmem_map(m, a, size);
    if (rc)
        return rc;
    /* Leave an unmapped guard page after every buffer: overruns become bus errors. */
    m->next_alloc = ((a + size + HOSTMEM_PAGE_SIZE - 1) & ~(uint64_t)(HOSTMEM_PAGE_SIZE - 1)) + HOSTMEM_PAGE_SIZE;
    *addr = a;
    return 0;
}

int hostmem_backed(const hostmem_t *m, uint64_t addr, uint64_t len)
{
    if (!m || (len && addr + len - 1 < addr))
        return 0;
    if (!len)
        return 1;
    for (uint64_t pfn = addr >> HOSTMEM_PAGE_SHIFT; pfn <= (addr + len - 1) >> HOSTMEM_PAGE_SHIFT; pfn++)
        if (!find(m, pfn))
            return 0;
    return 1;
}

/* Copy between buf and [addr, addr+len), page by page; the range is known backed. */
static void copy(const hostmem_t *m, uint64_t addr, void *buf, const void *src, size_t len)
{
    size_t done = 0;
    while (done < len) {
        uint64_t a = addr + done;
        size_t off = (size_t)(a & (HOSTMEM_PAGE_SIZE - 1));
        size_t n = HOSTMEM_PAGE_SIZE - off;
        if (n > len - done)
            n = len - done;
        uint8_t *page = find(m, a >> HOSTMEM_PAGE_SHIFT)->data;
        if (buf)
            memcpy((uint8_t *)buf + done, page + off, n);
        else
            memcpy(page + off, (const uint8_t *)src + done, n);
        done += n;
    }
}

/* The page holding all of [addr, addr+len) when it is one backed page (the
 * common access: a CQE polled, a WQE, a DMA beat), else NULL: one lookup
 * instead of hostmem_backed's and copy's. */
static uint8_t *one_page(const hostmem_t *m, uint64_t addr, size_t len)
{
    if (!m || !len || (addr & (HOSTMEM_PAGE_SIZE - 1)) + len > HOSTMEM_PAGE_SIZE)
        return NULL;
    const page_slot_t *s = find(m, addr >> HOSTMEM_PAGE_SHIFT);
    return s ? s->data + (addr & (HOSTMEM_PAGE_SIZE - 1)) : NULL;
}

int hostmem_read(const hostmem_t *m, uint64_t addr, void *buf, size_t len)
{
    uint8_t *p = buf ? one_page(m, addr, len) : NULL;
    if (p) {
        memcpy(buf, p, len);
        return 0;
    }
    if (!hostmem_backed(m, addr, len) || (len && !buf))
        return -EFAULT;
    copy(m, addr, buf, NULL, len);
    return 0;
}

int hostmem_write(hostmem_t *m, uint64_t addr, const void *buf, size_t len)
{
    uint8_t *p = buf ? one_page(m, addr, len) : NULL;
    if (p) {
        memcpy(p, buf, len);
        return 0;
    }
    if (!hostmem_backed(m, addr, len) || (len && !buf))
        return -EFAULT;
    copy(m, addr, NULL, buf, len);
    return 0;
}

/* ---------------------------------------------------------------- as a bus */

static int bus_host_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return hostmem_read(ctx, addr, buf, len);
}

static int bus_host_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
    return hostmem_write(ctx, addr, buf, len);
}

static const bus_ops_t hostmem_bus_ops = {bus_host_read, bus_host_write, NULL};

bus_t hostmem_bus(hostmem_t *m)
{
    return (bus_t){&hostmem_bus_ops, m};
}
