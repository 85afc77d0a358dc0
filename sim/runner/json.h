/* json.h — a small, strict JSON (RFC 8259) parser and writer helpers, C11, no dependency.
 *
 * Made for scenario files (docs/scenarios.md), where 64-bit keys and addresses
 * must survive exactly: integers are kept as a 64-bit magnitude and a sign,
 * never through a double. Any input is safe: every failure is an error with
 * the byte offset, line, column and reason; nesting is bounded, so the parser
 * never recurses without limit.
 *
 * A parsed document owns all its values (one arena); free it with
 * json_free(). Strings are NUL-terminated copies with their length (they may
 * hold "\u0000"); \uXXXX escapes, surrogate pairs included, become UTF-8.
 */
#ifndef JSON_H
#define JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum json_type {
    JSON_NULL = 0,
    JSON_BOOL,
    JSON_INT,    /**< an integer literal (no fraction, no exponent) in [-2^63, 2^64-1] */
    JSON_NUMBER, /**< any other number: fraction, exponent, or an integer out of 64-bit range */
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
} json_type_t;

typedef struct json_value json_value_t;

typedef struct json_member {
    const char *key; /**< NUL-terminated; key_len bytes (may contain NUL) */
    size_t key_len;
    size_t key_pos; /**< byte offset of the key's opening quote */
    json_value_t *value;
} json_member_t;

struct json_value {
    json_type_t type;
    size_t pos; /**< byte offset of the value's first character in the parsed text */
    union {
        int boolean;
        struct {
            uint64_t mag; /**< |value| */
            int neg;      /**< 1: the value is -mag (mag <= 2^63, never -0) */
        } integer;
        struct {
            double value;    /**< nearest double (strtod) */
            const char *raw; /**< the literal as written, NUL-terminated */
        } number;
        struct {
            const char *s; /**< NUL-terminated copy, len bytes */
            size_t len;
        } string;
        struct {
            json_value_t **items;
            size_t n;
        } array;
        struct {
            json_member_t *members; /**< in text order; keys are unique */
            size_t n;
        } object;
    } u;
};

/** Default nesting limit (arrays and objects). */
#define JSON_MAX_DEPTH_DEFAULT 64u

/** Why a parse failed. line and column are 1-based; column counts bytes. */
typedef struct json_error {
    size_t offset;
    size_t line, column;
    char msg[160];
} json_error_t;

typedef struct json_doc json_doc_t;

/** Parse len bytes of text (need not be NUL-terminated) as exactly one JSON
 *  value surrounded by optional whitespace. max_depth 0: JSON_MAX_DEPTH_DEFAULT.
 *  0 and *out set; -EINVAL with err filled (err may be NULL); -ENOMEM. */
int json_parse(const char *text, size_t len, unsigned max_depth, json_doc_t **out, json_error_t *err);
/** The document's top-level value. */
const json_value_t *json_root(const json_doc_t *doc);
void json_free(json_doc_t *doc);

/** Member of an object by key (NULL when absent or v is not an object). */
const json_value_t *json_get(const json_value_t *v, const char *key);
/** Name of a type, for messages ("integer", "string", ...). */
const char *json_type_name(json_type_t t);
/** The same with its article, for "got …" ("an integer", "a string", "null"). */
const char *json_type_phrase(json_type_t t);

/** v as an unsigned 64-bit integer: 0; -EINVAL when v is not an integer (a
 *  fraction or exponent included); -ERANGE when it is negative or beyond 2^64-1. */
int json_as_u64(const json_value_t *v, uint64_t *out);
/** v as a signed 64-bit integer: 0, -EINVAL, -ERANGE. */
int json_as_i64(const json_value_t *v, int64_t *out);

/** Write s (len bytes) as a JSON string literal, quotes included. */
void json_write_string(FILE *f, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* JSON_H */
