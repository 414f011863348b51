/*
 * host/runtime.h - the runtime path of the host module as its files share
 * it: keys (key.c), workloads in code (workload.c), bindings and their
 * cache (bind.c), the per-key slots (slots.c), selections (selection.c),
 * select (runtime.c), measuring one key and the waits a select makes
 * (key_measure.c), execute (execute.c) and a binding's constants with their
 * packed copies (constants.c).
 *
 * A binding is one workload as a caller described it.  Bindings whose
 * workloads have one key (a plugin that buckets m gives m = 200 and
 * m = 210 one key) share a slot: the host's state for that key, made once
 * and kept until olc_host_free.  A slot publishes what a select answers in
 * two views (by force_portable): an immutable selection behind an atomic
 * pointer, with the host's save epoch and the time it was last checked
 * against the store.  A warm select reads those three atomics and the
 * clock; everything else (lookups, measuring, waiting) is the slow path,
 * under the process-wide lock of sync.h where slots change state.
 */
#ifndef OLC_HOST_RUNTIME_H
#define OLC_HOST_RUNTIME_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "host/sync.h"
#include "olc/host.h"
#include "olc/plugin.h"
#include "plugins/plugins.h"
#include "record/record.h"
#include "util/arena.h"

typedef struct olc_host_slot olc_host_slot;

/* A key as the host composes it (key.c): the plugin's key, the identity
 * digest, and the store key pointing into both. */
typedef struct olc_host_key {
  olc_key key;
  olc_plugin_key pk;
  char *digest; /* malloc'ed: "<model>#<structure>" or "workload:<structure>" */
} olc_host_key;

/* Why a first candidate is served (slot->first[]). */
enum {
  OLC_HOST_FIRST_NEVER,
  OLC_HOST_FIRST_TIMEOUT,
  OLC_HOST_FIRST_CANCELLED,
  OLC_HOST_FIRST_FAILED,
  OLC_HOST_FIRST_KINDS
};

struct olc_selection {
  olc_selection *next; /* the slot's list, freed with it */
  olc_host_slot *slot;
  const olc_record *record; /* set.recs[0], or NULL for a first candidate */
  olc_recset set;           /* the record's own copy: no snapshot is kept alive */
  const unsigned char *policy;
  size_t policy_len;
  void *handle; /* the policy as the plugin deserialized it (for execute) */
  int owns_handle;
  int calibrated_now;
  olc_status why;
  char message[OLC_ERROR_MESSAGE_SIZE];
  /* A nearest answer (nearest.c): the neighbour's record (set.recs[0]),
   * whose policy it serves; record stays NULL (no record of this key). */
  const olc_record *nearest;
};

/* What a select answers for one force_portable setting. */
typedef struct olc_host_view {
  _Atomic(olc_selection *) current; /* a record, or the never-mode first candidate */
  _Atomic uint64_t epoch;           /* host->epoch the lookup behind current began at */
  _Atomic uint64_t checked_ns;      /* when that lookup was made */
  atomic_int checking;              /* a thread is refreshing the view */
} olc_host_view;

struct olc_host_slot {
  olc_host_slot *next; /* hash chain */
  uint64_t hash;
  olc_host *host;
  olc_loaded_plugin *plugin;
  olc_host_key key;
  olc_plugin_workload workload; /* the first binding's: measured, and handed to execute */
  const char *name;
  olc_arena arena; /* the workload's and the name's copies */
  olc_host_view view[2];
  int views;    /* the plugin takes views (ABI 1.3 OLC_PLUGIN_FEATURE_VIEWS) */
  int executes; /* olc_plugins__can_execute, asked once */
  /* The workload is a MatMul and the plugin has matmul_f32 (ABI 1.5): plain
   * float32 products skip the tensor descriptions (execute.c). */
  int matmul_f32;
  /* The plugin's first candidate (made once, under the global lock). */
  void *first_handle;
  olc_buf first_bytes;
  int first_made;
  atomic_int recorded;        /* the miss was appended to the record file (or tried) */
  atomic_int override_warned; /* a rejected override was warned of */
  /* Under the global lock. */
  int measuring;
  olc_status failed; /* the last measurement's failure; OLC_OK */
  char failed_message[OLC_ERROR_MESSAGE_SIZE];
  uint64_t retry_wait_ns; /* the wait after the last failure (doubling); 0: none failed */
  uint64_t retry_at_ns;   /* when a failed key may be measured again (the retry clock) */
  int refine_tried;       /* an on_miss select measured a contended record again (or tried) */
  olc_selection *first[OLC_HOST_FIRST_KINDS];
  olc_selection *nearest;    /* the last nearest answer made (reused while it holds) */
  olc_selection *selections; /* every selection of this slot */
  atomic_int verified;       /* a layer record was verified (verify_layers = on_first_use) */
};

/*
 * The packed copies of a binding's constants for one selection
 * (constants.c).  refs counts the binding's publication (1 while it is
 * the binding's current set) and every call executing with it; the call
 * that drops it to 0 releases the copies.  A set is never freed before its
 * binding: a call that loaded the binding's pointer just before the set
 * was replaced may still try to take a reference, and finds 0 (it can
 * never raise 0), so a released set is only reused, under the binding's
 * lock, with its fields written before refs is.
 */
typedef struct olc_host_packed {
  struct olc_host_packed *next;  /* the binding's sets */
  const olc_selection *sel;      /* packed for its policy */
  const olc_selection *replaced; /* the selection of the set this one replaced */
  _Atomic uint64_t refs;
  atomic_int released; /* its copies were freed: the set may be reused */
  int any;             /* some input has a packed copy */
  uint64_t bytes;
  void *packed[OLC_EXECUTE_MAX_OPERANDS]; /* by input; NULL: read in place */
} olc_host_packed;

/* A binding's constant inputs (olc_workload version 2). */
typedef struct olc_host_constants {
  uint32_t mask;                                       /* bit i: input i is constant */
  olc_tensor tensor[OLC_EXECUTE_MAX_OPERANDS];         /* by input; data borrowed */
  olc_plugin_tensor operand[OLC_EXECUTE_MAX_OPERANDS]; /* the same, as pack takes them */
  _Atomic(olc_host_packed *) current;                  /* NULL until the first execute */
  olc_host_packed *sets;                               /* every set made (under lock) */
  olc_util_rwlock lock;                                /* packing, taken exclusively */
  _Atomic uint64_t bytes;                              /* of the copies not yet released */
} olc_host_constants;

struct olc_binding {
  olc_binding *next; /* the host's cache chain (olc_host_select) */
  uint64_t hash;     /* of the description (workload.c) */
  olc_host *host;
  olc_host_slot *slot;
  int cached; /* owned by the host's cache */
  olc_arena arena;
  const char *backend;
  const char *name;
  const char *model_digest; /* the model's digest as given or hashed; NULL: none */
  olc_property *props;      /* sorted by name */
  size_t prop_count;
  olc_plugin_kv *kv; /* props as the plugin sees them */
  olc_plugin_workload workload;
  olc_host_constants *constants; /* NULL: none (constants.c) */
};

/* A chained hash table of slots or bindings (their next and hash). */
typedef struct olc_host_table {
  void **buckets;
  size_t cap; /* 0 or a power of two */
  size_t count;
} olc_host_table;

/* The runtime state of a host (in struct olc_host). */
typedef struct olc_host_runtime {
  olc_util_rwlock lock;           /* slots and bindings tables */
  olc_host_table slots;           /* olc_host_slot by key */
  olc_host_table bindings;        /* olc_binding by description (olc_host_select) */
  _Atomic uint64_t epoch;         /* bumped by every save and removal this host makes */
  uint64_t recheck_ns;            /* OLC_SELECT_RECHECK_MS */
  int select_mode;                /* OLC_SELECT_NEVER or OLC_SELECT_ON_MISS */
  int verify_layers;              /* OLC_VERIFY_LAYERS_NEVER or _ON_FIRST_USE */
  _Atomic uint64_t measurements;  /* keys measured by this host (statistics, tests) */
  atomic_int isolation_note_said; /* the lost isolation was warned of (once per host) */
} olc_host_runtime;

#endif
