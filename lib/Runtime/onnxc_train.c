/*===- onnxc_train.c - The training API of an onnxc --train library -------===*
 *
 * A library compiled with `onnxc --train` runs one training step per
 * onnxc_run: it takes the model's inputs, the labels and the state (the
 * parameters, BatchNormalization's running statistics, the optimizer's
 * state) and returns the loss and the next state. The functions here keep
 * that state in the library, so that a caller passes only the batch:
 * onnxc_train_step runs the step and makes its state outputs the current
 * state. Two generated symbols describe the state (lib/Driver/CodeGen.cpp):
 *   onnxc_model_train_info   "onnxc-train 1 <first state input> <count>\n"
 *                            then "<offset> <bytes>\n" per state tensor
 *   onnxc_model_train_state  the initial values at those offsets
 * Both are weak here: in a library compiled without --train they are
 * absent and the functions report it. onnxc_train_eval runs the library's
 * second function (onnxc_eval_*, see onnxc_runtime.c): the inference model
 * with the trained tensors as its last inputs, which it takes from the
 * state by name. A mutex serialises the training
 * calls; onnxc_run itself stays usable from any thread.
 *
 *===----------------------------------------------------------------------===*/

#include "onnxc/Runtime/onnxc_runtime.h"
#include "onnxc_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char onnxc_model_train_info[] __attribute__((weak));
extern const unsigned char onnxc_model_train_state[] __attribute__((weak));

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_loaded;     /* state copied from the initial values */
static int g_first = -1; /* the first state input */
static int g_count = -1; /* the number of state tensors */
static size_t *g_offsets, *g_sizes;
static void **g_state;             /* the current values, g_count buffers */
static __thread char g_error[512]; /* what the last call got wrong */

static onnxc_status fail(onnxc_status code, const char *message,
                         const char *detail) {
  snprintf(g_error, sizeof(g_error), "%s%s", message, detail ? detail : "");
  return code;
}

/* Parses the table once; -1 when this is not a training library. */
static int parse_info(void) {
  if (g_count >= 0)
    return g_count;
  if (!onnxc_model_train_info || !onnxc_model_train_state)
    return -1;
  const char *p = onnxc_model_train_info;
  int version, first, count, used = 0;
  if (sscanf(p, "onnxc-train %d %d %d\n%n", &version, &first, &count, &used) !=
          3 ||
      version != 1 || first < 0 || count < 0 ||
      first + count > onnxc_num_inputs() || 1 + count > onnxc_num_outputs())
    return -1;
  p += used;
  size_t *offsets = calloc((size_t)count + 1, sizeof(size_t));
  size_t *sizes = calloc((size_t)count + 1, sizeof(size_t));
  void **state = calloc((size_t)count + 1, sizeof(void *));
  if (!offsets || !sizes || !state) {
    free(offsets), free(sizes), free(state);
    return -1;
  }
  for (int i = 0; i < count; ++i) {
    unsigned long long offset, size;
    if (sscanf(p, "%llu %llu\n%n", &offset, &size, &used) != 2) {
      free(offsets), free(sizes), free(state);
      return -1;
    }
    p += used;
    offsets[i] = (size_t)offset;
    sizes[i] = (size_t)size;
  }
  g_offsets = offsets, g_sizes = sizes, g_state = state;
  g_first = first;
  g_count = count;
  return count;
}

/* The state tensor named `name`, -1 if none. */
static int state_index(const char *name) {
  for (int i = 0; name && i < g_count; ++i)
    if (!strcmp(name, onnxc_input_name(g_first + i)))
      return i;
  return -1;
}

/* Bytes of tensor `t` (state tensors have no sub-byte types). */
static size_t tensor_bytes(const onnxc_tensor *t) {
  size_t bytes = onnxc_rt_dtype_size(t->dtype);
  for (int d = 0; d < t->rank; ++d)
    bytes *= (size_t)t->shape[d];
  return bytes;
}

/* A buffer for the dims of every state tensor (state_tensor's `dims`, one
 * after another); NULL when out of memory. */
static int64_t *state_dims_buffer(void) {
  size_t num_dims = 0;
  for (int i = 0; i < g_count; ++i)
    num_dims += (size_t)onnxc_input_rank(g_first + i);
  return calloc(num_dims + 1, sizeof(int64_t));
}

/* Runs the model's initialization graph, if the library has one: each of
 * its outputs replaces the state tensor of its name (all or none). */
static onnxc_status run_initialization(void) {
  if (onnxc_rt_function_num(ONNXC_RT_INIT, 1) < 0)
    return ONNXC_OK;
  onnxc_tensor *outputs = NULL;
  size_t n = 0;
  onnxc_status status =
      onnxc_rt_run_function(ONNXC_RT_INIT, NULL, 0, &outputs, &n);
  if (status != ONNXC_OK)
    return fail(status,
                "the initialization graph failed: ", onnxc_last_error());
  for (size_t k = 0; k < n && status == ONNXC_OK; ++k) {
    const char *name = onnxc_rt_function_name(ONNXC_RT_INIT, 1, (int)k);
    int i = state_index(name);
    if (i < 0 || tensor_bytes(&outputs[k]) != g_sizes[i])
      status = fail(ONNXC_ERROR_SHAPE,
                    "the initialization graph's output does not fit the "
                    "state tensor ",
                    name);
  }
  for (size_t k = 0; k < n && status == ONNXC_OK; ++k) {
    int i = state_index(onnxc_rt_function_name(ONNXC_RT_INIT, 1, (int)k));
    memcpy(g_state[i], outputs[k].data, g_sizes[i]);
  }
  onnxc_free_outputs(outputs, n);
  return status;
}

/* Copies the initial values into the state buffers (first use, reset),
 * then runs the model's initialization graph. */
static onnxc_status load_initial(void) {
  for (int i = 0; i < g_count; ++i) {
    if (!g_state[i]) {
      g_state[i] = malloc(g_sizes[i] ? g_sizes[i] : 1);
      if (!g_state[i])
        return fail(ONNXC_ERROR_OUT_OF_MEMORY, "no memory for the state", 0);
    }
    memcpy(g_state[i], onnxc_model_train_state + g_offsets[i], g_sizes[i]);
  }
  onnxc_status status = run_initialization();
  if (status != ONNXC_OK)
    return status;
  g_loaded = 1;
  return ONNXC_OK;
}

/* Under g_lock: the table parsed and the state loaded. */
static onnxc_status ready(void) {
  if (parse_info() < 0)
    return fail(ONNXC_ERROR_INVALID_ARGUMENT,
                "not a training library (compile the model with onnxc "
                "--train)",
                0);
  return g_loaded ? ONNXC_OK : load_initial();
}

/* The tensor of state `i`, its shape from the signature (static). */
static void state_tensor(int i, onnxc_tensor *t, int64_t *dims) {
  int input = g_first + i;
  t->dtype = onnxc_input_dtype(input);
  t->rank = onnxc_input_rank(input);
  for (int d = 0; d < t->rank; ++d)
    dims[d] = onnxc_input_dim(input, d);
  t->shape = dims;
  t->data = g_state[i];
}

EXPORT int onnxc_train_num_state(void) {
  pthread_mutex_lock(&g_lock);
  int n = parse_info();
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT int onnxc_train_num_inputs(void) {
  pthread_mutex_lock(&g_lock);
  int n = parse_info() < 0 ? -1 : g_first;
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT const char *onnxc_train_last_error(void) { return g_error; }

EXPORT onnxc_status onnxc_train_step(const onnxc_tensor *inputs,
                                     size_t num_inputs, double *loss) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  if (status != ONNXC_OK)
    goto done;
  if (num_inputs != (size_t)g_first || (num_inputs && !inputs)) {
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "onnxc_train_step takes the inputs before the state "
                  "(onnxc_train_num_inputs)",
                  0);
    goto done;
  }
  size_t n = (size_t)g_first + (size_t)g_count;
  onnxc_tensor *all = calloc(n ? n : 1, sizeof(onnxc_tensor));
  int64_t *dims = state_dims_buffer();
  if (!all || !dims) {
    free(all), free(dims);
    status = fail(ONNXC_ERROR_OUT_OF_MEMORY, "no memory", 0);
    goto done;
  }
  memcpy(all, inputs, (size_t)g_first * sizeof(onnxc_tensor));
  for (int i = 0, d = 0; i < g_count; d += all[g_first + i].rank, ++i)
    state_tensor(i, &all[g_first + i], dims + d);
  onnxc_tensor *outputs = NULL;
  size_t num_outputs = 0;
  status = onnxc_run(all, n, &outputs, &num_outputs);
  free(all), free(dims);
  if (status != ONNXC_OK) {
    fail(status, "", onnxc_last_error());
    goto done;
  }
  if (loss)
    *loss = outputs[0].dtype == ONNXC_DOUBLE ? *(double *)outputs[0].data
                                             : *(float *)outputs[0].data;
  /* The step's state outputs become the state (copied: the outputs are
   * the run's buffers, released below), each of its state tensor's size
   * (a model's own algorithm might compute another shape). */
  for (int i = 0; i < g_count; ++i)
    if (tensor_bytes(&outputs[1 + i]) != g_sizes[i]) {
      status = fail(ONNXC_ERROR_SHAPE,
                    "the step's next value has another size than the state "
                    "tensor ",
                    onnxc_input_name(g_first + i));
      onnxc_free_outputs(outputs, num_outputs);
      goto done;
    }
  for (int i = 0; i < g_count; ++i)
    memcpy(g_state[i], outputs[1 + i].data, g_sizes[i]);
  onnxc_free_outputs(outputs, num_outputs);
done:
  pthread_mutex_unlock(&g_lock);
  return status;
}

EXPORT const char *onnxc_train_state_name(int i) {
  pthread_mutex_lock(&g_lock);
  const char *name = parse_info() < 0 || i < 0 || i >= g_count
                         ? NULL
                         : onnxc_input_name(g_first + i);
  pthread_mutex_unlock(&g_lock);
  return name;
}

EXPORT onnxc_status onnxc_train_get_state(int i, void *data, size_t bytes) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  if (status == ONNXC_OK &&
      (i < 0 || i >= g_count || !data || bytes != g_sizes[i]))
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "onnxc_train_get_state: bad index, buffer or size", 0);
  if (status == ONNXC_OK)
    memcpy(data, g_state[i], bytes);
  pthread_mutex_unlock(&g_lock);
  return status;
}

EXPORT onnxc_status onnxc_train_set_state(int i, const void *data,
                                          size_t bytes) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  if (status == ONNXC_OK &&
      (i < 0 || i >= g_count || !data || bytes != g_sizes[i]))
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "onnxc_train_set_state: bad index, buffer or size", 0);
  if (status == ONNXC_OK)
    memcpy(g_state[i], data, bytes);
  pthread_mutex_unlock(&g_lock);
  return status;
}

EXPORT size_t onnxc_train_state_bytes(int i) {
  pthread_mutex_lock(&g_lock);
  size_t n = parse_info() < 0 || i < 0 || i >= g_count ? 0 : g_sizes[i];
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT onnxc_status onnxc_train_reset(void) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = parse_info() < 0 ? ready() : load_initial();
  pthread_mutex_unlock(&g_lock);
  return status;
}

/* The evaluation's inputs before the state ones (the model's inputs), -1
 * without an evaluation function. */
static int eval_user_inputs(void) {
  int n = onnxc_rt_function_num(ONNXC_RT_EVAL, 0), k = 0;
  if (n < 0)
    return -1;
  for (; k < n; ++k)
    if (state_index(onnxc_rt_function_name(ONNXC_RT_EVAL, 0, k)) >= 0)
      return k;
  return k;
}

EXPORT int onnxc_train_eval_num_inputs(void) {
  pthread_mutex_lock(&g_lock);
  int n = parse_info() < 0 ? -1 : eval_user_inputs();
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT int onnxc_train_eval_num_outputs(void) {
  pthread_mutex_lock(&g_lock);
  int n = parse_info() < 0 ? -1 : onnxc_rt_function_num(ONNXC_RT_EVAL, 1);
  pthread_mutex_unlock(&g_lock);
  return n;
}

EXPORT const char *onnxc_train_eval_output_name(int i) {
  pthread_mutex_lock(&g_lock);
  const char *name =
      parse_info() < 0 ? NULL : onnxc_rt_function_name(ONNXC_RT_EVAL, 1, i);
  pthread_mutex_unlock(&g_lock);
  return name;
}

EXPORT onnxc_status onnxc_train_eval(const onnxc_tensor *inputs,
                                     size_t num_inputs, onnxc_tensor **outputs,
                                     size_t *num_outputs) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  int user = status == ONNXC_OK ? eval_user_inputs() : 0;
  int n = onnxc_rt_function_num(ONNXC_RT_EVAL, 0);
  onnxc_tensor *all = NULL;
  int64_t *dims = NULL;
  if (status != ONNXC_OK)
    goto done;
  if (user < 0) {
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "the library has no evaluation function", 0);
    goto done;
  }
  if (num_inputs != (size_t)user || (num_inputs && !inputs)) {
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                  "onnxc_train_eval takes the model's inputs "
                  "(onnxc_train_eval_num_inputs)",
                  0);
    goto done;
  }
  all = calloc((size_t)n + 1, sizeof(onnxc_tensor));
  dims = state_dims_buffer();
  if (!all || !dims) {
    status = fail(ONNXC_ERROR_OUT_OF_MEMORY, "no memory", 0);
    goto done;
  }
  memcpy(all, inputs, (size_t)user * sizeof(onnxc_tensor));
  /* The rest are state tensors, by name (each at most once: the names of
   * the evaluation's inputs are distinct). */
  for (int k = user, d = 0; k < n; ++k) {
    const char *name = onnxc_rt_function_name(ONNXC_RT_EVAL, 0, k);
    int i = state_index(name);
    if (i < 0) {
      status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                    "the evaluation function takes an input that is not "
                    "state: ",
                    name);
      goto done;
    }
    state_tensor(i, &all[k], dims + d);
    d += all[k].rank;
  }
  status = onnxc_rt_run_function(ONNXC_RT_EVAL, all, (size_t)n, outputs,
                                 num_outputs);
  if (status != ONNXC_OK)
    fail(status, "", onnxc_last_error());
done:
  free(all), free(dims);
  pthread_mutex_unlock(&g_lock);
  return status;
}

/* Checkpoints: "onnxc-checkpoint 1 <count>\n", then per state tensor
 * "<hex name> <bytes>\n" and the bytes. */
EXPORT onnxc_status onnxc_train_save(const char *path) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  FILE *f = status == ONNXC_OK && path ? fopen(path, "wb") : NULL;
  if (status == ONNXC_OK && !f)
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT, "cannot write ", path);
  if (f) {
    int ok = fprintf(f, "onnxc-checkpoint 1 %d\n", g_count) > 0;
    for (int i = 0; ok && i < g_count; ++i) {
      const char *name = onnxc_input_name(g_first + i);
      for (const char *c = name; *c && ok; ++c)
        ok = fprintf(f, "%02x", (unsigned char)*c) > 0;
      ok = ok && fprintf(f, " %zu\n", g_sizes[i]) > 0 &&
           fwrite(g_state[i], 1, g_sizes[i], f) == g_sizes[i];
    }
    if (fclose(f) != 0 || !ok)
      status = fail(ONNXC_ERROR_INVALID_ARGUMENT, "cannot write ", path);
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}

EXPORT onnxc_status onnxc_train_load(const char *path) {
  pthread_mutex_lock(&g_lock);
  onnxc_status status = ready();
  FILE *f = status == ONNXC_OK && path ? fopen(path, "rb") : NULL;
  if (status == ONNXC_OK && !f)
    status = fail(ONNXC_ERROR_INVALID_ARGUMENT, "cannot read ", path);
  if (f) {
    int count = -1;
    int ok = fscanf(f, "onnxc-checkpoint 1 %d", &count) == 1 &&
             count == g_count && fgetc(f) == '\n';
    /* Read everything before changing the state: a bad file changes
     * nothing. */
    void **values = calloc((size_t)g_count + 1, sizeof(void *));
    ok = ok && values;
    for (int i = 0; ok && i < g_count; ++i) {
      char hex[1024];
      size_t bytes = 0;
      const char *name = onnxc_input_name(g_first + i);
      char expected[1024] = "";
      for (size_t c = 0; name[c] && c < 500; ++c)
        sprintf(expected + 2 * c, "%02x", (unsigned char)name[c]);
      ok = fscanf(f, "%1023s %zu", hex, &bytes) == 2 && fgetc(f) == '\n' &&
           strcmp(hex, expected) == 0 && bytes == g_sizes[i];
      if (ok)
        ok = (values[i] = malloc(bytes ? bytes : 1)) != NULL &&
             fread(values[i], 1, bytes, f) == bytes;
    }
    if (ok)
      for (int i = 0; i < g_count; ++i)
        memcpy(g_state[i], values[i], g_sizes[i]);
    for (int i = 0; values && i < g_count; ++i)
      free(values[i]);
    free(values);
    fclose(f);
    if (!ok)
      status = fail(ONNXC_ERROR_INVALID_ARGUMENT,
                    "not a checkpoint of this model's state: ", path);
  }
  pthread_mutex_unlock(&g_lock);
  return status;
}
