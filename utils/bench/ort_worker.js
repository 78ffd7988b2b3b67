// ort_worker.js - ONNX Runtime side of utils/bench.py.
//
//   node ort_worker.js ORT_MODULE_DIR MODEL.onnx INPUTS.json THREADS
//
// Loads MODEL.onnx into an onnxruntime-node session (THREADS intra-op
// threads, sequential execution, all graph optimisations), binds the inputs
// that INPUTS.json describes ([{name, dtype, shape, file}], raw
// little-endian data in `file`), and then answers commands on stdin, one
// per line, with one JSON line on stdout:
//   run N        -> {"times_ms": [...]}       N timed runs
//   save DIR     -> {"outputs": [{name, dtype, shape, file}]} after one run
//   quit
// ONNX Runtime is the benchmark's reference only; nothing of it reaches the
// compiled models.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const [ortDir, modelPath, inputsJson, threadsArg] = process.argv.slice(2);
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

const typedArrays = {
  float32: Float32Array, int64: BigInt64Array, int32: Int32Array,
  uint8: Uint8Array, int8: Int8Array, bool: Uint8Array, float64: Float64Array,
};

function loadInput(spec) {
  const buf = fs.readFileSync(spec.file);
  const Ctor = typedArrays[spec.dtype];
  if (!Ctor) throw new Error(`unsupported input dtype ${spec.dtype}`);
  const data = new Ctor(buf.buffer, buf.byteOffset,
                        buf.byteLength / Ctor.BYTES_PER_ELEMENT);
  return new ort.Tensor(spec.dtype, data, spec.shape);
}

async function main() {
  const threads = parseInt(threadsArg, 10);
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  for (const spec of JSON.parse(fs.readFileSync(inputsJson, 'utf8')))
    feeds[spec.name] = loadInput(spec);

  const rl = readline.createInterface({ input: process.stdin });
  const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  reply({ ready: true, outputs: session.outputNames });
  for await (const line of rl) {
    const [cmd, arg] = line.trim().split(/\s+/);
    if (cmd === 'run') {
      const times = [];
      for (let i = 0; i < parseInt(arg, 10); ++i) {
        const t0 = process.hrtime.bigint();
        await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      reply({ times_ms: times });
    } else if (cmd === 'save') {
      const results = await session.run(feeds);
      const outputs = [];
      session.outputNames.forEach((name, k) => {
        const t = results[name];
        const file = path.join(arg, `ort_output_${k}.bin`);
        fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset,
                                           t.data.byteLength));
        outputs.push({ name, dtype: t.type, shape: t.dims, file });
      });
      reply({ outputs });
    } else if (cmd === 'quit') {
      break;
    } else {
      reply({ error: `unknown command ${cmd}` });
    }
  }
  rl.close();
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e && e.message || e) }) + '\n');
  process.exit(1);
});
