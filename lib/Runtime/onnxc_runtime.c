/*===- onnxc_runtime.c - The C API linked into every compiled model -------===*
 *
 * Implements include/onnxc/Runtime/onnxc_runtime.h on top of three symbols
 * that onnxc generates for each model:
 *   onnxc_model_signature  text: one line per input/output (parsed and
 *                          checked against in onnxc_signature.c)
 *   onnxc_model_messages   the run-time check messages, each ending in NUL,
 *                          the table ending in an empty one
 *   onnxc_model_entry      void (void **args): args[0] -> result memref
 *                          descriptors, args[1..] -> input descriptors
 * and provides what the generated code calls:
 *   _mlir_memref_to_llvm_alloc / _aligned_alloc / _free
 *                          every buffer of a run; each is recorded in the
 *                          run's list, so that a failed run frees them all
 *   onnxc_rt_fail          a failed run-time check: formats the message and
 *                          returns to onnxc_run (longjmp), which frees the
 *                          run's buffers and returns ONNXC_ERROR_RUNTIME
 * Needs only libc. Thread-safe: the signature is parsed once under
 * pthread_once and freed when the library is unloaded; runs share nothing
 * mutable; the current run and the error message are thread-local.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc/Runtime/onnxc_runtime.h"
#include "onnxc_internal.h"
#include "onnxc_signature.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char onnxc_model_signature[];
extern const char onnxc_model_messages[];
extern const char onnxc_model_device_inputs[] __attribute__((weak));
extern void onnxc_model_entry(void **args);
/* Computes the model's weight-only tensors into its globals (see
 * onnxc-hoist-constants); call_entry runs it once, before the first run. */
extern void onnxc_model_init(void);
/* A training library's second function, the model's inference with the
 * trained state as inputs (onnxc_train_eval; the same four symbols under
 * onnxc_eval_*, see lib/Driver/CodeGen.cpp); absent elsewhere. */
extern const char onnxc_eval_signature[] __attribute__((weak));
extern const char onnxc_eval_messages[] __attribute__((weak));
extern const char onnxc_eval_device_inputs[] __attribute__((weak));
extern void onnxc_eval_entry(void **args) __attribute__((weak));
extern void onnxc_eval_init(void) __attribute__((weak));
/* A training library's third function, the model's initialization graph
 * (TrainingInfoProto), under onnxc_init_*: absent elsewhere. */
extern const char onnxc_init_signature[] __attribute__((weak));
extern const char onnxc_init_messages[] __attribute__((weak));
extern const char onnxc_init_device_inputs[] __attribute__((weak));
extern void onnxc_init_entry(void **args) __attribute__((weak));
extern void onnxc_init_init(void) __attribute__((weak));
/* onnxc_threads.c: idle workers spin while a run is in progress. */
void onnxc_rt_run_begin(void);
void onnxc_rt_run_end(void);

#define EXPORT __attribute__((visibility("default")))

/* The CUDA target's part (onnxc_cuda.c), linked only into models compiled
 * for CUDA: where it is, buffers come from CUDA memory (onnxc_buffers.c),
 * each run first makes the device current (ending the run with
 * ONNXC_ERROR_DEVICE when there is none), and the inputs are copied into
 * buffers the kernels can read (onnxc_inputs.c). */
extern void onnxc_rt_device_enter(void) __attribute__((weak));
/* Whether inputs can come in device memory (onnxc_run_with). */
extern const char *onnxc_rt_device_copy_input(void *dst, const void *src,
                                              size_t bytes, int to_host)
    __attribute__((weak));
/* Waits for the kernels the thread launched (ending the run if one
 * failed), or only waits. */
extern void onnxc_rt_device_drain(void) __attribute__((weak));

static void parse_model(void);
static void parse_eval(void);
static void parse_init(void);
#define MODEL_TABLE(prefix, parser)                                            \
  {                                                                            \
    .signature = prefix##_signature, .messages = prefix##_messages,            \
    .device_inputs = prefix##_device_inputs, .entry = prefix##_entry,          \
    .init = prefix##_init, .parse = parser, .once = PTHREAD_ONCE_INIT,         \
    .num_inputs = -1, .num_outputs = -1,                                       \
    .init_lock = PTHREAD_MUTEX_INITIALIZER                                     \
  }
static model_table g_model = MODEL_TABLE(onnxc_model, parse_model);
static model_table g_eval = MODEL_TABLE(onnxc_eval, parse_eval);
static model_table g_init = MODEL_TABLE(onnxc_init, parse_init);

/* The table of a training library's function `which` (onnxc_internal.h). */
static model_table *function_table(int which) {
  return which == ONNXC_RT_EVAL   ? &g_eval
         : which == ONNXC_RT_INIT ? &g_init
                                  : NULL;
}
static __thread char g_error[1024];

onnxc_status onnxc_rt_error(onnxc_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error, sizeof(g_error), fmt, ap);
  va_end(ap);
  return code;
}

/*===----------------------------------------------------------------------===*
 * The run in progress
 *===----------------------------------------------------------------------===*/

typedef struct run_context {
  const model_table *model; /* what runs */
  int holds_init_lock;      /* inside the model's init (see call_entry) */
  int inputs_on_device;     /* onnxc_run_with's ONNXC_MEMORY_DEVICE */
  jmp_buf jump;
  onnxc_status status;
  onnxc_rt_block buffers; /* sentinel */
} run_context;

static __thread run_context *g_run;

/* Ends the current run with `code`; the message is already in g_error. */
__attribute__((noreturn)) static void abort_run(onnxc_status code) {
  if (!g_run)
    abort(); /* generated code runs only inside onnxc_run */
  g_run->status = code;
  longjmp(g_run->jump, 1);
}

/* For the runtime's other parts: ends the current run with `code` and the
 * message. */
__attribute__((noreturn)) void onnxc_rt_abort(onnxc_status code,
                                              const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_error, sizeof(g_error), fmt, ap);
  va_end(ap);
  abort_run(code);
}

/* The message `index` of onnxc_model_messages with {0}..{3} replaced by the
 * values. */
static void format_message(int32_t index, const int64_t values[4]) {
  const char *m =
      g_run && g_run->model ? g_run->model->messages : g_model.messages;
  for (int32_t i = 0; i < index && *m; ++i)
    m += strlen(m) + 1;
  if (!*m)
    m = "a run-time check failed";
  size_t n = 0;
  for (; *m && n + 1 < sizeof(g_error); ++m) {
    if (m[0] == '{' && m[1] >= '0' && m[1] <= '3' && m[2] == '}') {
      n += (size_t)snprintf(g_error + n, sizeof(g_error) - n, "%lld",
                            (long long)values[m[1] - '0']);
      if (n >= sizeof(g_error))
        n = sizeof(g_error) - 1;
      m += 2;
      continue;
    }
    g_error[n++] = *m;
  }
  g_error[n] = 0;
}

/* Called by the generated code when a run-time check fails. */
__attribute__((noreturn)) void onnxc_rt_fail(int32_t message, int64_t v0,
                                             int64_t v1, int64_t v2,
                                             int64_t v3) {
  int64_t values[4] = {v0, v1, v2, v3};
  format_message(message, values);
  abort_run(ONNXC_ERROR_RUNTIME);
}

/* Runs the generated code; on a failed check or allocation, frees every
 * buffer of the run and returns the status. */
static onnxc_status call_entry(model_table *m, run_context *run, void **args) {
  run_context *outer = g_run;
  run->model = m;
  run->buffers.prev = run->buffers.next = &run->buffers;
  run->status = ONNXC_OK;
  g_run = run;
  onnxc_rt_run_blocks = &run->buffers;
  run->holds_init_lock = 0;
  if (setjmp(run->jump)) {
    if (onnxc_rt_device_drain)
      onnxc_rt_device_drain();
    if (run->holds_init_lock) { /* the init failed: the next run retries */
      run->holds_init_lock = 0;
      pthread_mutex_unlock(&m->init_lock);
    }
    g_run = outer;
    onnxc_rt_run_blocks = outer ? &outer->buffers : NULL;
    onnxc_rt_release_all(&run->buffers);
    return run->status;
  }
  if (onnxc_rt_device_enter)
    onnxc_rt_device_enter();
  onnxc_rt_stage_inputs(m, args, run->inputs_on_device,
                        onnxc_rt_device_enter != NULL);
  if (!__atomic_load_n(&m->init_done, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&m->init_lock);
    run->holds_init_lock = 1;
    if (!m->init_done) {
      m->init();
      __atomic_store_n(&m->init_done, 1, __ATOMIC_RELEASE);
    }
    run->holds_init_lock = 0;
    pthread_mutex_unlock(&m->init_lock);
  }
  m->entry(args);
  if (onnxc_rt_device_sync)
    onnxc_rt_device_sync();
  g_run = outer;
  onnxc_rt_run_blocks = outer ? &outer->buffers : NULL;
  return ONNXC_OK;
}

/*===----------------------------------------------------------------------===*
 * Signature
 *===----------------------------------------------------------------------===*/

__attribute__((destructor)) static void free_signatures(void) {
  onnxc_rt_free_signature(&g_model);
  onnxc_rt_free_signature(&g_eval);
  onnxc_rt_free_signature(&g_init);
}

static void parse_signature(model_table *m) {
  if (m->signature && onnxc_rt_parse_tables(m)) {
    m->signature_ok = 1;
    return;
  }
  onnxc_rt_free_signature(m);
}
static void parse_model(void) { parse_signature(&g_model); }
static void parse_eval(void) { parse_signature(&g_eval); }
static void parse_init(void) { parse_signature(&g_init); }

/* 1 when the signature is available; every API function checks it. An
 * absent function (the evaluation of a library without one) has none. */
static int ensure_signature(model_table *m) {
  pthread_once(&m->once, m->parse);
  return m->signature_ok;
}

EXPORT int onnxc_api_version(void) { return ONNXC_API_VERSION; }

/* onnxc_cuda.c's definition replaces this one in models compiled for CUDA. */
EXPORT __attribute__((weak)) const char *onnxc_device(void) { return "cpu"; }
EXPORT int onnxc_num_inputs(void) {
  return ensure_signature(&g_model) ? g_model.num_inputs : -1;
}
EXPORT int onnxc_num_outputs(void) {
  return ensure_signature(&g_model) ? g_model.num_outputs : -1;
}

static const sig_tensor *get_in(model_table *m, int output, int index) {
  if (!ensure_signature(m))
    return NULL;
  if (index < 0 || index >= (output ? m->num_outputs : m->num_inputs))
    return NULL;
  return output ? &m->outputs[index] : &m->inputs[index];
}

static const sig_tensor *get(int output, int index) {
  return get_in(&g_model, output, index);
}

EXPORT const char *onnxc_input_name(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->name : NULL;
}
EXPORT int32_t onnxc_input_dtype(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->dtype : -1;
}
EXPORT int onnxc_input_type(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->type : -1;
}
EXPORT int onnxc_output_type(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->type : -1;
}
EXPORT int32_t onnxc_input_key_dtype(int i) {
  const sig_tensor *t = get(0, i);
  return t && t->key_dtype ? t->key_dtype : -1;
}
EXPORT int32_t onnxc_output_key_dtype(int i) {
  const sig_tensor *t = get(1, i);
  return t && t->key_dtype ? t->key_dtype : -1;
}
EXPORT int onnxc_input_rank(int i) {
  const sig_tensor *t = get(0, i);
  return t ? t->rank : -1;
}
EXPORT int64_t onnxc_input_dim(int i, int axis) {
  const sig_tensor *t = get(0, i);
  return t && axis >= 0 && axis < t->rank ? t->dims[axis] : -1;
}
EXPORT const char *onnxc_input_dim_name(int i, int axis) {
  const sig_tensor *t = get(0, i);
  return t && axis >= 0 && axis < t->rank ? t->dim_names[axis] : NULL;
}
EXPORT const char *onnxc_output_name(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->name : NULL;
}
EXPORT int32_t onnxc_output_dtype(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->dtype : -1;
}
EXPORT int onnxc_output_rank(int i) {
  const sig_tensor *t = get(1, i);
  return t ? t->rank : -1;
}
EXPORT int64_t onnxc_output_dim(int i, int axis) {
  const sig_tensor *t = get(1, i);
  return t && axis >= 0 && axis < t->rank ? t->dims[axis] : -1;
}
EXPORT const char *onnxc_output_dim_name(int i, int axis) {
  const sig_tensor *t = get(1, i);
  return t && axis >= 0 && axis < t->rank ? t->dim_names[axis] : NULL;
}
EXPORT const char *onnxc_last_error(void) { return g_error; }

/* A memref descriptor: allocated, aligned, offset, sizes[r], strides[r]. */
static size_t descriptor_words(int rank) { return 3 + 2 * (size_t)rank; }

/* A tensor passed as a memref descriptor. An output of rank -1 (its rank
 * decided by the taken If branch) is a tensor the generated code returns
 * as a pointer to a tensor value instead. */
static int is_tensor(const sig_tensor *t) {
  return t->type == ONNXC_TYPE_TENSOR && t->rank >= 0;
}

/* Words of entry `t` in the argument or result block: a descriptor for a
 * tensor, a pointer for the others. */
static size_t value_words(const sig_tensor *t) {
  return is_tensor(t) ? descriptor_words(t->rank) : 1;
}

static void free_value_array(onnxc_value *values, int count) {
  for (int i = 0; i < count; ++i)
    onnxc_rt_free_value(&values[i]);
  free(values);
}

/* Runs `m` (see onnxc_run_values). */
static onnxc_status run_values(model_table *m, const onnxc_value *inputs,
                               size_t num_inputs, onnxc_value **outputs,
                               size_t *num_outputs, int inputs_on_device) {
  g_error[0] = 0;
  if (!outputs || !num_outputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "outputs pointers are null");
  *outputs = NULL;
  *num_outputs = 0;
  if (!ensure_signature(m))
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY,
                          "out of memory reading the model's signature");
  if (num_inputs != (size_t)m->num_inputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "the model takes %d inputs, %zu given", m->num_inputs,
                          num_inputs);
  if (num_inputs && !inputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT, "inputs is null");

  size_t total_dims = 0;
  for (int i = 0; i < m->num_inputs; ++i)
    total_dims += (size_t)(m->inputs[i].rank > 0 ? m->inputs[i].rank : 0);
  onnxc_rt_bound_dim *bound =
      calloc(total_dims + 1, sizeof(onnxc_rt_bound_dim));
  void **handles = calloc((size_t)m->num_inputs + 1, sizeof(void *));
  if (!bound || !handles) {
    free(bound);
    free(handles);
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  int num_bound = 0;
  for (int i = 0; i < m->num_inputs; ++i) {
    onnxc_status s = onnxc_rt_check_value(&m->inputs[i], i, &inputs[i], bound,
                                          &num_bound, &handles[i]);
    if (s != ONNXC_OK) {
      free(bound);
      free(handles);
      return s;
    }
  }
  free(bound);

  /* Descriptors (or pointers): inputs, then one block for all results. */
  size_t in_words = 0, out_words = 0;
  for (int i = 0; i < m->num_inputs; ++i)
    in_words += value_words(&m->inputs[i]);
  for (int i = 0; i < m->num_outputs; ++i)
    out_words += value_words(&m->outputs[i]);
  int64_t *words = calloc(in_words + out_words + 1, sizeof(int64_t));
  void **args = calloc((size_t)m->num_inputs + 1, sizeof(void *));
  onnxc_value *result = calloc((size_t)m->num_outputs + 1, sizeof(onnxc_value));
  run_context *run = malloc(sizeof(run_context));
  if (!words || !args || !result || !run) {
    free(words);
    free(args);
    free(result);
    free(run);
    free(handles);
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  int64_t *results = words + in_words;
  args[0] = results;
  int64_t *w = words;
  for (int i = 0; i < m->num_inputs; ++i) {
    if (!is_tensor(&m->inputs[i])) {
      args[1 + i] = handles[i];
      continue;
    }
    const onnxc_tensor *in = &((const onnxc_value *)handles[i])->tensor;
    int r = in->rank;
    memcpy(&w[0], &in->data, sizeof(void *));
    memcpy(&w[1], &in->data, sizeof(void *));
    w[2] = 0;
    int64_t stride = 1; /* no overflow: check_tensor bounded the product */
    for (int d = r - 1; d >= 0; --d) {
      w[3 + d] = in->shape[d];
      w[3 + r + d] = stride;
      stride *= in->shape[d];
    }
    args[1 + i] = w;
    w += descriptor_words(r);
  }
  free(handles);

  run->inputs_on_device = inputs_on_device;
  onnxc_rt_run_begin();
  onnxc_status status = call_entry(m, run, args);
  onnxc_rt_run_end();
  if (status != ONNXC_OK) {
    free(words);
    free(args);
    free(result);
    free(run);
    return status;
  }

  /* Take the tensor results out of the run's list of buffers and copy the
   * other values out of it; what remains there the generated code did not
   * free, and is freed now. */
  int copied = 1;
  w = results;
  for (int i = 0; i < m->num_outputs; ++i) {
    const sig_tensor *t = &m->outputs[i];
    if (!is_tensor(t)) {
      const onnxc_value *v;
      memcpy(&v, &w[0], sizeof v);
      if (t->type == ONNXC_TYPE_TENSOR || t->type == ONNXC_TYPE_SEQUENCE ||
          t->type == ONNXC_TYPE_MAP || t->type == ONNXC_TYPE_SEQUENCE_OF_MAPS) {
        copied = copied && onnxc_rt_copy_value(v, &result[i]);
      } else {
        result[i].kind = ONNXC_KIND_OPTIONAL;
        result[i].tensor.dtype = t->dtype;
        if (v && copied) {
          result[i].items = calloc(1, sizeof(onnxc_value));
          copied = result[i].items && onnxc_rt_copy_value(v, result[i].items);
          result[i].num_items = result[i].items != NULL;
        }
      }
      ++w;
      continue;
    }
    int r = t->rank;
    void *allocated;
    memcpy(&allocated, &w[0], sizeof(void *));
    result[i].kind = ONNXC_KIND_TENSOR;
    if (t->dtype == ONNXC_STRING) {
      /* The strings may live in the run's buffers: copied out now. */
      const char *const *aligned;
      memcpy(&aligned, &w[1], sizeof(void *));
      int64_t count = 1;
      for (int d = 0; d < r; ++d)
        count *= w[3 + d];
      result[i].tensor.dtype = t->dtype;
      result[i].tensor.rank = r;
      result[i].tensor.data =
          copied ? onnxc_rt_copy_strings(aligned + w[2], count) : NULL;
      copied = copied && result[i].tensor.data;
      w += descriptor_words(r);
      continue;
    }
    if (allocated)
      onnxc_rt_detach_block(allocated);
    result[i].tensor.dtype = t->dtype;
    result[i].tensor.rank = r;
    result[i].tensor.data = allocated;
    w += descriptor_words(r);
  }
  onnxc_rt_release_all(&run->buffers);
  free(run);

  w = results;
  for (int i = 0; i < m->num_outputs && copied; ++i) {
    const sig_tensor *t = &m->outputs[i];
    if (!is_tensor(t)) {
      ++w;
      continue;
    }
    int r = t->rank;
    int64_t *shape = malloc(sizeof(int64_t) * ((size_t)r + 1));
    if (!shape) {
      copied = 0;
      break;
    }
    for (int d = 0; d < r; ++d)
      shape[d] = w[3 + d];
    result[i].tensor.shape = shape;
    /* The generated code returns fresh allocations (see the
     * onnxc-fresh-result-buffers pass); `allocated` is what the allocator
     * gave. Move the data to the start of its own block so that
     * onnxc_free_values releases it. The element count fits: the buffer
     * exists. */
    size_t bytes = onnxc_rt_dtype_size(t->dtype);
    for (int d = 0; d < r; ++d)
      bytes *= (size_t)shape[d];
    if (t->dtype == ONNXC_STRING) {
      w += descriptor_words(r);
      continue;
    }
    void *aligned;
    memcpy(&aligned, &w[1], sizeof(void *));
    char *data =
        (char *)aligned + w[2] * (int64_t)onnxc_rt_dtype_size(t->dtype);
    void *own = result[i].tensor.data;
    if (data != own && own && bytes)
      memmove(own, data, bytes);
    if (onnxc_rt_dtype_packed_bits(t->dtype) && own)
      onnxc_rt_pack_elements(own, (int64_t)bytes,
                             onnxc_rt_dtype_packed_bits(t->dtype));
    w += descriptor_words(r);
  }
  free(words);
  free(args);
  if (!copied) {
    free_value_array(result, m->num_outputs);
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  *outputs = result;
  *num_outputs = (size_t)m->num_outputs;
  return ONNXC_OK;
}

EXPORT onnxc_status onnxc_run_values(const onnxc_value *inputs,
                                     size_t num_inputs, onnxc_value **outputs,
                                     size_t *num_outputs) {
  return run_values(&g_model, inputs, num_inputs, outputs, num_outputs, 0);
}

EXPORT void onnxc_free_values(onnxc_value *values, size_t num_values) {
  if (values)
    free_value_array(values, (int)num_values);
}

/* Runs `m` (see onnxc_run). */
static onnxc_status run_tensors(model_table *m, const onnxc_tensor *inputs,
                                size_t num_inputs, onnxc_tensor **outputs,
                                size_t *num_outputs, int inputs_on_device) {
  g_error[0] = 0;
  if (!outputs || !num_outputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "outputs pointers are null");
  *outputs = NULL;
  *num_outputs = 0;
  if (!ensure_signature(m))
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY,
                          "out of memory reading the model's signature");
  for (int k = 0; k < m->num_inputs + m->num_outputs; ++k) {
    const sig_tensor *t =
        k < m->num_inputs ? &m->inputs[k] : &m->outputs[k - m->num_inputs];
    if (t->type != ONNXC_TYPE_TENSOR)
      return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                            "%s '%s' is not a tensor: run the model with "
                            "onnxc_run_values",
                            k < m->num_inputs ? "input" : "output", t->name);
  }
  if (num_inputs != (size_t)m->num_inputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "the model takes %d inputs, %zu given", m->num_inputs,
                          num_inputs);
  if (num_inputs && !inputs)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT, "inputs is null");
  onnxc_value *values = calloc(num_inputs + 1, sizeof(onnxc_value));
  onnxc_tensor *result =
      calloc((size_t)m->num_outputs + 1, sizeof(onnxc_tensor));
  if (!values || !result) {
    free(values);
    free(result);
    return onnxc_rt_error(ONNXC_ERROR_OUT_OF_MEMORY, "out of memory");
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    values[i].kind = ONNXC_KIND_TENSOR;
    values[i].tensor = inputs[i];
  }
  onnxc_value *out = NULL;
  size_t count = 0;
  onnxc_status status =
      run_values(m, values, num_inputs, &out, &count, inputs_on_device);
  free(values);
  if (status != ONNXC_OK) {
    free(result);
    return status;
  }
  for (size_t i = 0; i < count; ++i)
    result[i] = out[i].tensor; /* the shape and data move */
  free(out);
  *outputs = result;
  *num_outputs = count;
  return ONNXC_OK;
}

EXPORT onnxc_status onnxc_run(const onnxc_tensor *inputs, size_t num_inputs,
                              onnxc_tensor **outputs, size_t *num_outputs) {
  return run_tensors(&g_model, inputs, num_inputs, outputs, num_outputs, 0);
}

EXPORT onnxc_status onnxc_run_with(const onnxc_run_options *options,
                                   const onnxc_tensor *inputs,
                                   size_t num_inputs, onnxc_tensor **outputs,
                                   size_t *num_outputs) {
  if (outputs)
    *outputs = NULL;
  if (num_outputs)
    *num_outputs = 0;
  int memory = ONNXC_MEMORY_HOST;
  if (options && options->size >= offsetof(onnxc_run_options, input_memory) +
                                      sizeof options->input_memory)
    memory = options->input_memory;
  if (memory != ONNXC_MEMORY_HOST && memory != ONNXC_MEMORY_DEVICE)
    return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                          "input_memory is %d: ONNXC_MEMORY_HOST (0) or "
                          "ONNXC_MEMORY_DEVICE (1)",
                          (int)memory);
  if (memory == ONNXC_MEMORY_DEVICE) {
    if (!onnxc_rt_device_copy_input)
      return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                            "ONNXC_MEMORY_DEVICE: the model runs on the CPU "
                            "(compiled without --target=cuda); its inputs "
                            "are host memory");
    for (size_t i = 0; inputs && i < num_inputs; ++i)
      if (inputs[i].dtype == ONNXC_STRING)
        return onnxc_rt_error(ONNXC_ERROR_INVALID_ARGUMENT,
                              "ONNXC_MEMORY_DEVICE: input %zu is a tensor of "
                              "strings, which are host memory",
                              i);
  }
  return run_tensors(&g_model, inputs, num_inputs, outputs, num_outputs,
                     memory == ONNXC_MEMORY_DEVICE);
}

/* A training library's other functions (onnxc_train.c). */
onnxc_status onnxc_rt_run_function(int which, const onnxc_tensor *inputs,
                                   size_t num_inputs, onnxc_tensor **outputs,
                                   size_t *num_outputs) {
  model_table *m = function_table(which);
  g_error[0] = 0;
  if (!m || !ensure_signature(m) || !m->entry || !m->init)
    return onnxc_rt_error(
        ONNXC_ERROR_INVALID_ARGUMENT, "the library has no %s function",
        which == ONNXC_RT_EVAL ? "evaluation" : "initialization");
  return run_tensors(m, inputs, num_inputs, outputs, num_outputs, 0);
}
int onnxc_rt_function_num(int which, int output) {
  model_table *m = function_table(which);
  return m && ensure_signature(m) ? (output ? m->num_outputs : m->num_inputs)
                                  : -1;
}
const char *onnxc_rt_function_name(int which, int output, int index) {
  model_table *m = function_table(which);
  const sig_tensor *t = m ? get_in(m, output, index) : NULL;
  return t ? t->name : NULL;
}

EXPORT void onnxc_free_outputs(onnxc_tensor *outputs, size_t num_outputs) {
  if (!outputs)
    return;
  for (size_t i = 0; i < num_outputs; ++i) {
    free((void *)(uintptr_t)outputs[i].shape); /* ours */
    onnxc_rt_release_block(outputs[i].data, 1);
  }
  free(outputs);
}
