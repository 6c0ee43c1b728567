// `snarkjs groth16 prove` with the blinding scalars r and s fixed instead of random, so a proof
// made by another prover from the same zkey, witness, r and s can be compared byte for byte.
// snarkjs draws r then s from Fr.random() of the curve object that ffjavascript caches, so
// wrapping that method on the cached object is enough.
// Usage (from this folder): node det-prove.cjs bls12381|bn128 ZKEY WTNS PROOF.json [r s]
'use strict';
const fs = require('fs');
const snarkjs = require('snarkjs');
const { buildBls12381, buildBn128 } = require('ffjavascript');

async function main(argv) {
    const [curveName, zkey, wtns, proofPath, r = '11', s = '22'] = argv;
    const builders = { bls12381: buildBls12381, bn128: buildBn128 };
    if (!builders[curveName] || !proofPath) {
        throw new Error('usage: det-prove.cjs bls12381|bn128 ZKEY WTNS PROOF.json [r s]');
    }
    const curve = await builders[curveName]();
    const queued = [curve.Fr.e(r), curve.Fr.e(s)];
    const draw = curve.Fr.random.bind(curve.Fr);
    curve.Fr.random = () => (queued.length > 0 ? queued.shift() : draw());
    try {
        const { proof } = await snarkjs.groth16.prove(zkey, wtns);
        if (queued.length !== 0) throw new Error('snarkjs did not draw r and s as expected');
        fs.writeFileSync(proofPath, JSON.stringify(proof, null, 1) + '\n');
    } finally {
        await curve.terminate();
    }
}

main(process.argv.slice(2)).catch((err) => {
    console.error(err.message);
    process.exit(1);
});
