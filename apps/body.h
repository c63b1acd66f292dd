/* The bodies of 'strata ... --sculpt' POST requests (apps/sculpt.c): small
 * JSON objects from the editor page, read from an untrusted client.  Apart
 * from the server so that a fuzz harness can drive them
 * (tests/fuzz/fuzz_sculpt.c).  Each key is looked up once (a key that is
 * missing or appears twice is refused); the reader is strict enough for
 * the page's bodies, not a JSON parser. */
#ifndef STRATA_APPS_BODY_H
#define STRATA_APPS_BODY_H

#include "strata.h"

#include <stdbool.h>
#include <stddef.h>

/* "key":"word" in the NUL-terminated body, word 1 to cap - 1 letters,
 * digits, '_' or '-', into w[0..cap). */
bool body_word(const char *body, const char *key, char *w, size_t cap);

/* The dab {"brush":NAME,"center":[x,y,z],"radius":r,"strength":s} into
 * *d: NULL, or what is wrong with it (a message naming the key).  A dab
 * accepted passes strata_edit_validate. */
const char *body_dab(const char *body, strata_edit *d);

/* The export {"format":"glb"|"stl"|"world","name":NAME}: NULL with the
 * format in format[0..8) and the name (1 to 64 letters, digits, '_' or
 * '-', not '-' first) in name[0..65), or what is wrong with it. */
const char *body_export(const char *body, char format[8], char name[65]);

#endif
