// dory-wire/component for require(): where the WebAssembly component (WIT
// package dory:wire) and its WIT files are.
"use strict";
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

/** The component, `dory-wire.wasm`. */
exports.componentUrl = pathToFileURL(join(__dirname, "dory-wire.wasm"));

/** The directory of its WIT files. */
exports.witUrl = pathToFileURL(join(__dirname, "wit") + "/");
