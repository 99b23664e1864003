#ifndef XIZOR_CSQLITE_SHIM_H
#define XIZOR_CSQLITE_SHIM_H
#include <sqlite3.h>
#include <string.h>
/* SQLITE_TRANSIENT is a cast macro Swift cannot import. */
static inline sqlite3_destructor_type xizor_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* PostgreSQL's greatest(…) and least(…), so a statement is written once for both databases:
   NULL arguments are ignored (NULL only when all are); numbers compare as numbers, text as bytes,
   and a number sorts before text (SQLite's own order of storage classes). */
static inline int xizor_sqlite_class(sqlite3_value *v) {
    switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: return 0;
    case SQLITE_INTEGER: case SQLITE_FLOAT: return 1;
    case SQLITE_TEXT: return 2;
    default: return 3;
    }
}

static inline int xizor_sqlite_compare(sqlite3_value *a, sqlite3_value *b) {
    int ca = xizor_sqlite_class(a), cb = xizor_sqlite_class(b);
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca == 1) {
        if (sqlite3_value_type(a) == SQLITE_INTEGER && sqlite3_value_type(b) == SQLITE_INTEGER) {
            sqlite3_int64 x = sqlite3_value_int64(a), y = sqlite3_value_int64(b);
            return x < y ? -1 : x > y;
        }
        double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
        return x < y ? -1 : x > y;
    }
    const void *x = ca == 2 ? (const void *)sqlite3_value_text(a) : sqlite3_value_blob(a);
    const void *y = ca == 2 ? (const void *)sqlite3_value_text(b) : sqlite3_value_blob(b);
    int nx = sqlite3_value_bytes(a), ny = sqlite3_value_bytes(b);
    int c = memcmp(x, y, (size_t)(nx < ny ? nx : ny));
    return c != 0 ? c : (nx < ny ? -1 : nx > ny);
}

static inline void xizor_sqlite_extreme(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    int sign = *(int *)sqlite3_user_data(ctx);
    sqlite3_value *best = 0;
    for (int i = 0; i < argc; i++) {
        if (sqlite3_value_type(argv[i]) == SQLITE_NULL) continue;
        if (!best || sign * xizor_sqlite_compare(argv[i], best) > 0) best = argv[i];
    }
    if (best) sqlite3_result_value(ctx, best); else sqlite3_result_null(ctx);
}

static inline int xizor_sqlite_register_functions(sqlite3 *db) {
    static int greatest = 1, least = -1;
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(db, "greatest", -1, flags, &greatest, xizor_sqlite_extreme, 0, 0, 0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function_v2(db, "least", -1, flags, &least, xizor_sqlite_extreme, 0, 0, 0);
}
#endif
