// Validate .glb files with the Khronos glTF-Validator (npm package
// "gltf-validator").  Usage: node gltf-validate.mjs MODULE FILE...
// MODULE is the path of the package's module.mjs (the caller finds it).
// Prints one line per file:
//   FILE: errors=E warnings=W infos=I
// followed by the first messages when there are errors or warnings, and
// exits 1 if any file has an error or a warning, 2 on a usage problem.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

const [modulePath, ...files] = process.argv.slice(2);
if (!modulePath || files.length === 0) {
    console.error('usage: node gltf-validate.mjs MODULE FILE...');
    process.exit(2);
}
const validator = await import(pathToFileURL(modulePath).href);

let bad = 0;
for (const file of files) {
    const bytes = new Uint8Array(await readFile(file));
    const report = await validator.validateBytes(bytes, {
        uri: file,
        maxIssues: 0,
        writeTimestamp: false,
    });
    const i = report.issues;
    console.log(`${file}: errors=${i.numErrors} warnings=${i.numWarnings} ` +
                `infos=${i.numInfos} hints=${i.numHints}`);
    for (const m of i.messages.slice(0, 20))
        console.log(`  ${['error', 'warning', 'info', 'hint'][m.severity]} ${m.code} ` +
                    `${m.pointer ?? ''}: ${m.message}`);
    if (i.numErrors > 0 || i.numWarnings > 0)
        bad++;
}
process.exit(bad ? 1 : 0);
