'use strict';
// E1a's standalone run: the /html workload N times in one process, one iteration after the other,
// each firing its two queries at once on the pool of 10, as node-server's /html does. Time it from
// outside: time node standalone.js 1000
// Progress goes to stderr; the last line on stdout says what ran. Exit 1 on a database failure,
// 2 on a bad argument. --driver: mysql, or the post's mysql-native, which runs on Node.js 4 only
// (servers/node4/node standalone.js --driver mysql-native N); elsewhere it exits 1 saying why.

const workload = require('./workload');

const DRIVERS = workload.DRIVERS;
const USAGE = `usage: node standalone.js [--driver ${DRIVERS.join('|')}] [N]   ` +
              '(N iterations, 1..999999999, default 1000; driver mysql by default)\n';
const args = process.argv.slice(2);
let driverName = 'mysql';
const driverAt = args.findIndex(a => a === '--driver' || a.startsWith('--driver='));
if (driverAt >= 0) {
  const flag = args.splice(driverAt, 1)[0];
  driverName = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : args.splice(driverAt, 1)[0];
}
const arg = args.length > 0 ? args[0] : '1000';
if (args.length > 1 || DRIVERS.indexOf(driverName) < 0 || !/^[1-9][0-9]{0,8}$/.test(arg)) {
  process.stderr.write(USAGE);
  process.exit(2);
}
const iterations = Number(arg);
const step = Math.max(1, Math.floor(iterations / 10));
let driver;
try {
  driver = workload.loadDriver(driverName);
} catch (error) {
  process.stderr.write(`standalone.js: the ${driverName} driver cannot run here: ${error.message}\n`);
  process.exit(1);
}
const pool = workload.createPool(driver, workload.dbDefaults());

function iterate(done) {
  workload.htmlPage(pool, 0, (error, page) => {
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
                         `${Buffer.byteLength(page)} bytes rendered each), Node.js ${process.version}, ${driverName}\n`);
    pool.end(() => process.exit(0));
  });
}

iterate(0);
