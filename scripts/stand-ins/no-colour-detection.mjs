// Stands in for chalk's own terminal detection (its `#supports-color`) inside the CLI
// bundle (scripts/build-cli.mjs). tasks decides colour itself (src/render/style.ts:
// --no-color, NO_COLOR, FORCE_COLOR, TTY) and gives chalk the level; chalk's detection
// would only cost start-up time (about 4 ms: it reads the environment, the OS release
// and the terminal). chalk's ready-made instances, which tasks does not use, get no colour.
export default { stdout: false, stderr: false };
