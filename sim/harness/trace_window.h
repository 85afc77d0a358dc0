/* trace_window.h — dump an engine's waves for the cycles [from, to) only.
 *
 * Shared by the harnesses of the translation unit (sim/harness/xu.c) and of the
 * device core (sim/harness/core.c): both engines open and close FST files the same
 * way, and the harness calls trace_window_tick() before every cycle while
 * trace_window_pending() says a boundary is still ahead.
 */
#ifndef TRACE_WINDOW_H
#define TRACE_WINDOW_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_window {
    void *eng;                                       /**< the engine, passed to open/close */
    int (*open)(void *eng, const char *path);        /**< the engine's trace_open */
    void (*close)(void *eng);                        /**< the engine's trace_close */
    uint64_t from, to;
    int pending; /**< a window boundary is still ahead */
    int on;      /**< the engine is dumping */
    char *path;
    /* several windows in one file (trace_window_open_spans) */
    void (*pause)(void *eng, int paused); /**< the engine's trace_pause, NULL: none */
    uint64_t *spans;                      /**< n [from, to) pairs, NULL: one window (from, to) */
    size_t nspans, cur;                   /**< the window now or next */
} trace_window_t;

/** Set the engine whose waves the window controls (before any other call). */
void trace_window_init(trace_window_t *w, void *eng, int (*open)(void *, const char *), void (*close)(void *));

/** Dump cycles [from, to) (to = UINT64_MAX: until closed) to path; now is the
 *  cycle the next tick runs. The engine is asked at once, so an engine without
 *  waves answers here (-ENOTSUP); a window starting later reopens (rewrites)
 *  the file at `from`. 0, -EINVAL, -ENOMEM or the engine's error. */
int trace_window_open(trace_window_t *w, const char *path, uint64_t from, uint64_t to, uint64_t now);

/** The engine's way to pause its dump (NULL: none): needed by
 *  trace_window_open_spans for more than one window. */
void trace_window_set_pause(trace_window_t *w, void (*pause)(void *, int));

/** Dump the n windows spans[2i] .. spans[2i+1] (cycles [from, to), sorted,
 *  disjoint, nonempty) into one file opened now: the engine pauses between
 *  them and the file is closed after the last. One window is
 *  trace_window_open's. 0, -EINVAL, -ENOTSUP (no pause), -ENOMEM or the
 *  engine's error. */
int trace_window_open_spans(trace_window_t *w, const char *path, const uint64_t *spans, size_t n, uint64_t now);

/** Stop dumping and forget the window. */
void trace_window_close(trace_window_t *w);

/** Open or close at a window boundary; call before the tick of cycle now. */
void trace_window_edge(trace_window_t *w, uint64_t now);

/** 1 while trace_window_edge() has a boundary to act on. Cheap: the per-cycle test. */
static inline int trace_window_pending(const trace_window_t *w)
{
    return w->pending;
}

#endif /* TRACE_WINDOW_H */
