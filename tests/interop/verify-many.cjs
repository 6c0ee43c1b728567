// `snarkjs groth16 verify` on many cases in one process (a curve is built once, not per case):
// each case is read as snarkjs's command line reads it (JSON.parse of the file as UTF-8) and
// verified with snarkjs.groth16.verify; any exception is a refusal, as it is for the command.
// Usage (from this folder): node verify-many.cjs CASES, CASES holding lines
// `EXPECT NAME VK PUBLIC PROOF`; prints `NAME ok` or `NAME no` for each.
'use strict';
const fs = require('fs');
const snarkjs = require('snarkjs');

async function verdict(vkPath, publicPath, proofPath) {
    try {
        const vk = JSON.parse(fs.readFileSync(vkPath, 'utf8'));
        const pub = JSON.parse(fs.readFileSync(publicPath, 'utf8'));
        const proof = JSON.parse(fs.readFileSync(proofPath, 'utf8'));
        return (await snarkjs.groth16.verify(vk, pub, proof)) ? 'ok' : 'no';
    } catch (err) {
        return 'no';
    }
}

async function main(argv) {
    if (argv.length !== 1) throw new Error('usage: verify-many.cjs CASES');
    const lines = fs.readFileSync(argv[0], 'utf8').split('\n').filter((l) => l.trim() !== '');
    for (const line of lines) {
        const [, name, vk, pub, proof] = line.split(' ');
        console.log(`${name} ${await verdict(vk, pub, proof)}`);
    }
}

main(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
        console.error(err.message);
        process.exit(1);
    }
);
