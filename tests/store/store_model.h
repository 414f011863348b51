/*
 * tests/store/store_model.h - the in-memory model of a profile store used
 * by the Z3 model check: a set of records, each reduced to one comparable
 * line "<level> <origin> <identity> <value> <policy>".
 */
#ifndef OLC_TEST_STORE_MODEL_H
#define OLC_TEST_STORE_MODEL_H

#include <stddef.h>

#include "olc/store.h"

#define MODEL_MAX 256
#define MODEL_LINE 160

typedef struct model {
  char lines[MODEL_MAX][MODEL_LINE];
  size_t count;
} model;

/* One record's comparable line (identity fields, level, origin, the first
 * measurement, the policy). */
void model_line(char *out, size_t size, const olc_record *r);

/* Inserts or replaces the record with r's level, origin and identity. */
void model_put(model *m, const olc_record *r);

/* Removes the record with r's level, origin and identity; 1 when found. */
int model_remove(model *m, const olc_record *r);

/* Sorts the lines (models compare as sets). */
void model_sort(model *m);

/* 1 when the store's list (sorted) equals the model. */
int model_equal(const model *a, const model *b);

/* Fills m from a record list. */
void model_from_list(model *m, const olc_record_list *list);

void model_print(const char *title, const model *m);

#endif
