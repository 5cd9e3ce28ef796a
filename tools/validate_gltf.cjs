// Validate glTF 2.0 files with the Khronos glTF Validator (npm package `gltf-validator`).
// Usage: node tools/validate_gltf.cjs FILE.glb|FILE.gltf ...
// Prints one JSON report per file (an array), the validator's own format; exit 0 when every
// file was read (the caller judges the counts), 2 for a usage error or an unreadable file.
// Resources (.bin, images) of a .gltf are read from its folder. The package is installed by
// scripts/bootstrap.sh into .venv/node (NODE_PATH points there; see tests/export/).
"use strict";
const fs = require("fs");
const path = require("path");
const validator = require("gltf-validator");

async function validate(file) {
  const data = new Uint8Array(fs.readFileSync(file));
  const folder = path.dirname(file);
  return validator.validateBytes(data, {
    uri: path.basename(file),
    maxIssues: 1000,
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        fs.readFile(path.join(folder, decodeURIComponent(uri)), (error, bytes) =>
          error ? reject(error.toString()) : resolve(new Uint8Array(bytes)));
      }),
  });
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    console.error("usage: node validate_gltf.cjs FILE...");
    process.exit(2);
  }
  const reports = [];
  for (const file of files) {
    try {
      reports.push(await validate(file));
    } catch (error) {
      console.error(`${file}: ${error}`);
      process.exit(2);
    }
  }
  console.log(JSON.stringify(reports));
}

main();
