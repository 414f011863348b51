/*
 * config/key_table.h - the keys of the ini configuration, one table row each.
 *
 * Every key the host itself reads ([host], [store], [calibration] and the
 * fixed keys of [workload.NAME] and [plugin.NAME]) is one olc_config_key:
 * its section, name, type with its range or choices, default, where the
 * value lands and a one-line description.  The parser (key_set.c) finds,
 * checks, stores, defaults and reports every key from its row alone, so
 * adding a key is one row in key_table.c plus the code that uses the value.
 *
 * The documentation lists the same rows: config/examples/full.ini, the
 * CONFIGURATION section of host/cli/olc.1 and the key table of
 * docs/configuration.md.
 * tests/config/test_config_docs.c compares each of them with this table,
 * both ways, and prints the lines a new row needs (--print).
 *
 * Thread safety: the table is constant.
 */
#ifndef OLC_CONFIG_KEY_TABLE_H
#define OLC_CONFIG_KEY_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The sections with keys of the host's own.  A value is a section kind of
 * the parser (ini_parse_int.h), and 0 is none. */
typedef enum olc_config_section {
  OLC_CONFIG_HOST = 1,
  OLC_CONFIG_STORE = 2,
  OLC_CONFIG_CALIBRATION = 3,
  OLC_CONFIG_WORKLOAD = 4, /* [workload.NAME]; other keys are properties */
  OLC_CONFIG_PLUGIN = 5    /* [plugin.NAME]; every key is passed on too */
} olc_config_section;

/*
 * What a value is, and what it is stored as.  The struct a value lands in
 * is the section's: olc_config for [host] and [store],
 * olc_calibration_settings for [calibration], olc_workload_config and
 * olc_plugin_config for the named sections.
 */
typedef enum olc_config_type {
  OLC_CONFIG_BOOL,      /* int 1/0; true/false, yes/no, on/off, 1/0, any case */
  OLC_CONFIG_INT,       /* decimal in [min, max]: uint32_t, int32_t or int64_t by size */
  OLC_CONFIG_NUMBER,    /* decimal number in [min, max] (see MIN_EXCLUSIVE): double */
  OLC_CONFIG_ENUM,      /* int: the value of the choice named exactly (case matters) */
  OLC_CONFIG_PATH,      /* const char *: resolved against the file's directory */
  OLC_CONFIG_PATH_LIST, /* const char ** and a size_t count (count_offset): paths
                           separated by ':' or ',', each resolved; empty items skipped */
  OLC_CONFIG_STRING     /* const char *: as written, when check accepts it */
} olc_config_type;

/* Row flags. */
#define OLC_CONFIG_MIN_EXCLUSIVE 1u /* NUMBER: min itself is out of range */
#define OLC_CONFIG_EMPTY_OK 2u      /* an empty value is a value (else an error) */
#define OLC_CONFIG_REQUIRED 4u      /* a section without the key is an error */
/* ENUM: the boolean words (BOOL's, any case) also name the choices
 * "true" and "false", so a boolean key can gain choices and keep every
 * value it took. */
#define OLC_CONFIG_BOOL_WORDS 8u
/* PATH_LIST: an item named by a @...@ location whose place does not exist
 * (for a glob: its directory) is dropped without a word, as an install may
 * ship nothing there; an item the user named stays, for its consumer to
 * report. */
#define OLC_CONFIG_SKIP_MISSING_LOCATED 16u

/* One name of an ENUM; a list ends with a NULL name. */
typedef struct olc_config_choice {
  const char *name;
  int value;
} olc_config_choice;

struct parser;
typedef struct olc_config_key olc_config_key;

struct olc_config_key {
  olc_config_section section;
  const char *name;
  olc_config_type type;
  unsigned flags;
  /* INT and NUMBER: the range (an INT's bounds are whole numbers). */
  double min, max;
  const olc_config_choice *choices; /* ENUM */
  /* The default as a file would say it; parsed like a value when the key
   * is absent.  NULL: none (the consumer knows what absent means). */
  const char *def;
  /* Without a default: a value the documentation shows (full.ini). */
  const char *example;
  /* Where the value lands in the section's struct. */
  size_t offset;
  size_t size;
  size_t count_offset; /* PATH_LIST: where the number of paths lands */
  /* PATH_LIST: where an array of one byte per path lands, 1 when the item
   * began with a @...@ location (a place plugins may be, not one the user
   * named); 0: not kept. */
  size_t located_offset;
  /* STRING: 1 when the value is acceptable (NULL: any), and what it should
   * be, for the message ("expected ..."). */
  int (*check)(const char *value);
  const char *expected;
  /* Another key of the section that this one excludes (NULL: none). */
  const char *excludes;
  /* Checks and stores the value instead of the type's own code (NULL: by
   * type); base is the section's struct.  1, or 0 after olc_config__fail,
   * as inih wants. */
  int (*set)(struct parser *p, const olc_config_key *key, char *base, const char *value);
  const char *description; /* one line, for the documentation */
};

/*
 * Parses a BOOL, INT, NUMBER or ENUM value as row k says (range,
 * choices) into field, which has k->size bytes.  1, or 0 when the value
 * is not one of k's (field unchanged); 0 for the other types.  Defined
 * in key_set.c, the rest of this header in key_table.c.
 */
int olc_config__key_parse(void *field, const olc_config_key *k, const char *value);

/* The table: *count rows, sorted by section, in documentation order. */
const olc_config_key *olc_config__keys(size_t *count);

/*
 * The row of name in section, or NULL.  *bit (may be NULL) is the key's
 * bit among the rows of its section (below 64: test_config_keys checks).
 */
const olc_config_key *olc_config__key_find(olc_config_section section, const char *name,
                                           uint64_t *bit);

/* "host", "store", "calibration", "workload", "plugin"; "?" otherwise. */
const char *olc_config__section_name(olc_config_section section);

/*
 * What a good value is, as the messages say it ("an integer from 0 to
 * 65536", "race or full").  Writes at most size bytes (NUL-terminated);
 * returns buf.
 */
char *olc_config__key_expected(char *buf, size_t size, const olc_config_key *key);

/* The type as the documentation says it ("boolean", "integer, 0 to 65536",
 * "number, > 0 and <= 86400", "race or full", "path"); returns buf. */
char *olc_config__key_type_text(char *buf, size_t size, const olc_config_key *key);

#endif
