'use strict';
// E1a's standalone run: the /html workload N times in one process, one iteration after the other,
// each firing its two queries at once on the pool of 10, as node-server's /html does. Time it from
// outside: time node standalone.js 1000
// Progress goes to stderr; the last line on stdout says what ran. Exit 1 on a database failure,
// 2 on a bad argument.

const {createPool, dbDefaults, htmlPage} = require('./workload');

const arg = process.argv[2] ?? '1000';
if (process.argv.length > 3 || !/^[1-9][0-9]{0,8}$/.test(arg)) {
  process.stderr.write('usage: node standalone.js [N]   (N iterations, 1..999999999, default 1000)\n');
  process.exit(2);
}
const iterations = Number(arg);
const step = Math.max(1, Math.floor(iterations / 10));
const pool = createPool(dbDefaults());

function iterate(done) {
  htmlPage(pool, 0, (error, page) => {
    if (error) {
      process.stderr.write(`standalone.js: standalone run failed: ${error.message}\n`);
      process.exit(1);
    }
    ++done;
    if (done % step === 0 || done === iterations) {
      process.stderr.write(`standalone: ${done}/${iterations}\n`);
    }
    if (done < iterations) {
      iterate(done);
      return;
    }
    process.stdout.write(`standalone: ${iterations} iterations of the /html workload (2 queries, ` +
                         `${Buffer.byteLength(page)} bytes rendered each), node\n`);
    pool.end(() => process.exit(0));
  });
}

iterate(0);
