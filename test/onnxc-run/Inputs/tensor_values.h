/*===- tensor_values.h - API version 2 for the hand-written tensor models ===*
 *
 * onnxc_input_type, onnxc_output_type, onnxc_run_values and
 * onnxc_free_values of a model of tensors only, on top of its onnxc_run and
 * onnxc_free_outputs, as a compiled model's runtime provides them. Include
 * it at the end of the model's file (it uses its `lastError` buffer).
 *
 *===----------------------------------------------------------------------===*/
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int onnxc_input_type(int i) {
  return i >= 0 && i < onnxc_num_inputs() ? ONNXC_TYPE_TENSOR : -1;
}
int onnxc_output_type(int i) {
  return i >= 0 && i < onnxc_num_outputs() ? ONNXC_TYPE_TENSOR : -1;
}

/* The values handed out, with the tensors of onnxc_run they wrap. */
struct tensor_values {
  onnxc_tensor *tensors;
  size_t count;
  onnxc_value values[];
};

onnxc_status onnxc_run_values(const onnxc_value *inputs, size_t num_inputs,
                              onnxc_value **outputs, size_t *num_outputs) {
  *outputs = NULL;
  *num_outputs = 0;
  onnxc_tensor tensors[8];
  if (num_inputs > 8 || (num_inputs && !inputs)) {
    snprintf(lastError, sizeof lastError, "bad inputs");
    return ONNXC_ERROR_INVALID_ARGUMENT;
  }
  for (size_t i = 0; i < num_inputs; ++i) {
    if (inputs[i].kind != ONNXC_KIND_TENSOR) {
      snprintf(lastError, sizeof lastError, "input %zu: not a tensor", i);
      return ONNXC_ERROR_INVALID_ARGUMENT;
    }
    tensors[i] = inputs[i].tensor;
  }
  onnxc_tensor *results = NULL;
  size_t count = 0;
  onnxc_status status = onnxc_run(tensors, num_inputs, &results, &count);
  if (status != ONNXC_OK)
    return status;
  struct tensor_values *block =
      malloc(sizeof *block + count * sizeof(onnxc_value));
  if (!block) {
    onnxc_free_outputs(results, count);
    snprintf(lastError, sizeof lastError, "out of memory");
    return ONNXC_ERROR_OUT_OF_MEMORY;
  }
  block->tensors = results;
  block->count = count;
  for (size_t i = 0; i < count; ++i) {
    memset(&block->values[i], 0, sizeof(onnxc_value));
    block->values[i].kind = ONNXC_KIND_TENSOR;
    block->values[i].tensor = results[i];
  }
  *outputs = block->values;
  *num_outputs = count;
  return ONNXC_OK;
}

void onnxc_free_values(onnxc_value *values, size_t num_values) {
  (void)num_values;
  if (!values)
    return;
  struct tensor_values *block =
      (struct tensor_values *)((char *)values -
                               offsetof(struct tensor_values, values));
  onnxc_free_outputs(block->tensors, block->count);
  free(block);
}
