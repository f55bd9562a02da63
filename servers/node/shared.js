'use strict';
// What the real Node.js systems share: node-server (the plain http module) and express-server (Express
// routing) differ only in how a request reaches its endpoint. Here: the command line, the
// endpoints (/html, /json, /hello, /factorial, the /tasks demo) as functions of the query that
// answer through a reply(status, type, body, headers) of the server's own, and the lifecycle (the
// ready line, --cluster, the graceful stop on SIGTERM or SIGINT). Written for Node.js 4 as well
// as today's, as workload.js.

const cluster = require('cluster');
const http = require('http');
const os = require('os');
const workload = require('./workload');

const DRIVERS = workload.DRIVERS;

const MAX_DELAY_MS = 10000;
const DEFAULT_TASK_DELAY_MS = 2000;
// A graceful stop waits this long for requests in flight, as the C++ servers' --timeout.
const STOP_TIMEOUT_MS = 30000;
const TEXT = 'text/plain; charset=utf-8';

// program: {name, title, port}: the command's name, what it is (the first line of --help), its
// default port.
function usage(program) {
  return `usage: servers/node/${program.name} [options]
${program.title}
  --listen HOST:PORT     address to listen on (default 127.0.0.1:${program.port}; port 0: a free port)
  --cluster              one worker process per core (node:cluster), the primary balancing
  --backlog N            listen queue length (default 511, Node's)
  --driver NAME          database driver: ${DRIVERS.join(' or ')} (default mysql)
${workload.dbFlagHelp()}
  -h, --help             this text
Once it listens (every worker, with --cluster) it prints "listening on http://HOST:PORT/".
SIGTERM or SIGINT: stop accepting, let requests in flight finish (at most 30 s), end the
database pool, exit 0; a second signal closes every connection at once. Its process tree (the
process and, with --cluster, its workers) is the server. Task lines of /tasks go to stderr.
Exit status: 0 after a signal, 1 on a start-up failure (a driver that cannot run here is one),
2 on bad arguments.
`;
}

function parseArguments(program, argv) {
  const badUsage = message => {
    process.stderr.write(`${program.name}: ${message}\n${usage(program)}`);
    process.exit(2);
  };
  const options = {host: '127.0.0.1', port: program.port, cluster: false, backlog: 511,
                   driver: 'mysql', db: workload.dbDefaults()};
  const valueFlags = new Map(workload.DB_SETTINGS.map(s => [s.flag.split(' ')[0], s.key]));
  for (let i = 0; i < argv.length; ++i) {
    let flag = argv[i];
    let value = null;
    const equals = flag.indexOf('=');
    if (flag.startsWith('--') && equals > 0) {
      value = flag.slice(equals + 1);
      flag = flag.slice(0, equals);
    }
    const takeValue = () => {
      if (value === null) {
        if (i + 1 >= argv.length) {
          badUsage(`${flag} needs a value`);
        }
        value = argv[++i];
      }
      return value;
    };
    if (flag === '-h' || flag === '--help') {
      process.stdout.write(usage(program));
      process.exit(0);
    } else if (flag === '--cluster' && value === null) {
      options.cluster = true;
    } else if (flag === '--listen') {
      const text = takeValue();
      const match = /^(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+):([0-9]{1,5})$/.exec(text);
      if (!match || Number(match[2]) > 65535) {
        badUsage(`--listen wants HOST:PORT, not '${text}'`);
      }
      options.host = match[1].replace(/^\[(.*)\]$/, '$1');
      options.port = Number(match[2]);
    } else if (flag === '--backlog') {
      const text = takeValue();
      if (!/^[0-9]{1,6}$/.test(text) || Number(text) < 1) {
        badUsage(`--backlog: bad value '${text}'`);
      }
      options.backlog = Number(text);
    } else if (flag === '--driver') {
      options.driver = takeValue();
      if (DRIVERS.indexOf(options.driver) < 0) {
        badUsage(`--driver: '${options.driver}' is none of ${DRIVERS.join(', ')}`);
      }
    } else if (valueFlags.has(flag)) {
      options.db[valueFlags.get(flag)] = takeValue();
    } else {
      badUsage(`unknown argument '${argv[i]}'`);
    }
  }
  const dbPort = Number(options.db.port);
  if (!Number.isInteger(dbPort) || dbPort < 1 || dbPort > 65535) {
    badUsage(`--db-port: bad port '${options.db.port}'`);
  }
  return options;
}

function urlHost(host) {
  return host.includes(':') ? `[${host}]` : host;
}

// "HH:MM:SS.mmm tasks #N: task one" (UTC), one write per line, as the C++ servers log.
function logTask(demo, task) {
  process.stderr.write(`${new Date().toISOString().slice(11, 23)} tasks #${demo}: ${task}\n`);
}

function percentDecode(text, plusIsSpace) {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) {
    return null;
  }
  const spaced = plusIsSpace ? text.replace(/\+/g, ' ') : text;
  // A character per byte, as the C++ router decodes: %FF need not be UTF-8.
  return spaced.replace(/%([0-9A-Fa-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
}

// A parameter out of its rules: the request's 400.
function badRequest(message) {
  const error = new Error(message);
  error.badRequest = true;
  return error;
}

// query's value of a parameter, or fallback when it has none.
function parameter(values, name, fallback) {
  return values[name] === undefined ? fallback : values[name];
}

// The C++ router's parameters: plain decimal digits in range, every occurrence checked, the last
// one wins; other parameters are ignored.
function integerParameters(query, limits) {
  const values = {};
  for (const pair of query.split('&')) {
    if (pair === '') {
      continue;
    }
    const equals = pair.indexOf('=');
    const name = percentDecode(equals < 0 ? pair : pair.slice(0, equals), true);
    const value = percentDecode(equals < 0 ? '' : pair.slice(equals + 1), true);
    if (name === null || value === null) {
      throw badRequest('malformed percent-encoding in the query');
    }
    const limit = limits[name];
    if (limit === undefined) {
      continue;
    }
    if (!/^[0-9]+$/.test(value) || Number(value) > limit.max) {
      throw badRequest(limit.message);
    }
    values[name] = Number(value);
  }
  return values;
}

const DELAY = {delay_ms: {max: MAX_DELAY_MS, message: 'delay_ms must be an integer from 0 to 10000'}};
const FACTORIAL_N = {n: {max: 20000, message: 'n must be an integer from 0 to 20000'}};

// The answers that are no endpoint's, the same bytes whichever server sends them.
const NOT_FOUND = [404, TEXT, 'no such endpoint\n', {}];
const NOT_ALLOWED = [405, TEXT, 'only GET and HEAD are allowed\n', {Allow: 'GET, HEAD'}];

// The event loop's delay since the start, as the async model's /status gives it (E9): how late
// a 10-ms timer runs, from perf_hooks.monitorEventLoopDelay; {samples: 0} on a Node.js without
// it (4's).
function loopDelayMonitor() {
  let histogram = null;
  try {
    histogram = require('perf_hooks').monitorEventLoopDelay({resolution: 10});
    histogram.enable();
  } catch (error) {
    return () => ({samples: 0});
  }
  // Node.js records the whole time between the timer's runs: the delay is what exceeds its 10 ms.
  const ms = ns => Math.max(0, ns / 1e6 - 10);
  return () => histogram.count === 0 ? {samples: 0} : {
    samples: histogram.count, mean_ms: ms(histogram.mean), p50_ms: ms(histogram.percentile(50)),
    p99_ms: ms(histogram.percentile(99)), max_ms: ms(histogram.max),
  };
}

// The endpoints on this pool: {routes: {PATH: (query, reply) => ...}, stop()}, where reply is
// (status, type, body, headers) and stop() drops the task twos still pending. /status gives
// the process's pid and its event loop's delay only: the real systems have no counters of their
// own, the harness reads /proc.
function endpoints(me, pool) {
  const pendingTaskTwos = new Map();
  const loopDelay = loopDelayMonitor();
  let taskDemos = 0;

  const fromDatabase = (reply, type) => (error, body) => {
    if (!error) {
      reply(200, type, body);
    } else if (error.fatal) {
      process.stderr.write(`${me}: database unavailable: ${error.message}\n`);
      reply(503, TEXT, 'database unavailable\n', {'Retry-After': '1'});
    } else {
      process.stderr.write(`${me}: database query failed: ${error.message}\n`);
      reply(500, TEXT, 'database query failed\n');
    }
  };

  const routes = {
    '/html': (query, reply) => workload.htmlPage(pool, parameter(integerParameters(query, DELAY), 'delay_ms', 0),
                                                 fromDatabase(reply, 'text/html; charset=utf-8')),
    '/json': (query, reply) => workload.ordersJson(pool, parameter(integerParameters(query, DELAY), 'delay_ms', 0),
                                                   fromDatabase(reply, 'application/json')),
    '/hello': (query, reply) => {
      // E2's handler: an empty loop to 10, then the text.
      let i;
      for (i = 0; i < 10; i++);
      reply(200, TEXT, `Hello World! ${i}\n`);
    },
    '/factorial': (query, reply) => {
      const n = parameter(integerParameters(query, FACTORIAL_N), 'n', 10 + Math.floor(Math.random() * 31));
      reply(200, TEXT, workload.factorial(n));
    },
    '/status': (query, reply) => reply(200, 'application/json',
                                       `${JSON.stringify({pid: process.pid, event_loop_delay: loopDelay()})}\n`),
    // E4's demo: task one, task two on a timer, the response, task three at once.
    '/tasks': (query, reply) => {
      const delayMs = parameter(integerParameters(query, DELAY), 'delay_ms', DEFAULT_TASK_DELAY_MS);
      const demo = ++taskDemos;
      logTask(demo, 'task one');
      pendingTaskTwos.set(demo, setTimeout(() => {
        pendingTaskTwos.delete(demo);
        logTask(demo, 'task two');
      }, delayMs));
      reply(200, TEXT, `task one\ntask three\ntask two runs ${delayMs} ms after task one, ` +
                           'after this response was sent\n');
      logTask(demo, 'task three');
    },
  };
  const stop = () => {
    pendingTaskTwos.forEach((timer, demo) => {
      clearTimeout(timer);
      logTask(demo, 'task two dropped: server stopping');
    });
    pendingTaskTwos.clear();
  };
  return {routes, stop};
}

// Runs an endpoint on the query of the request target; a bad parameter is a 400.
function answer(route, target, reply) {
  const question = target.indexOf('?');
  try {
    route(question < 0 ? '' : target.slice(question + 1), reply);
  } catch (error) {
    if (!error.badRequest) {
      throw error;
    }
    reply(400, TEXT, `${error.message}\n`);
  }
}

// The driver, or exit 1 with what failed when it cannot run here.
function driverOrExit(me, name) {
  try {
    return workload.loadDriver(name);
  } catch (error) {
    process.stderr.write(`${me}: the ${name} driver cannot run here: ${error.message}\n`);
    process.exit(1);
  }
}

// One server process: listener(routes) is the server's request listener over the endpoints.
function serve(program, options, listener) {
  const me = program.name;
  const pool = workload.createPool(driverOrExit(me, options.driver), options.db);
  const served = endpoints(me, pool);
  const server = http.createServer(listener(served.routes));
  // Each connection and its requests in flight, for the stop: Node.js 4 has neither
  // closeIdleConnections nor closeAllConnections.
  const connections = new Map();
  server.on('connection', socket => {
    connections.set(socket, 0);
    socket.on('close', () => connections.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    connections.set(socket, connections.get(socket) + 1);
    res.on('finish', () => {
      if (connections.has(socket)) {
        connections.set(socket, connections.get(socket) - 1);
        if (stopping && connections.get(socket) === 0) {
          socket.end();
        }
      }
    });
  });
  const closeConnections = idleOnly => connections.forEach((inFlight, socket) => {
    if (!idleOnly || inFlight === 0) {
      socket.destroy();
    }
  });

  let stopping = false;
  const stop = () => {
    if (stopping) {
      closeConnections(false);
      pool.end(() => process.exit(0));
      setTimeout(() => process.exit(0), 1000).unref();
      return;
    }
    stopping = true;
    served.stop();
    // The idle keep-alive connections close now, the others after their response.
    server.close(() => pool.end(() => process.exit(0)));
    closeConnections(true);
    setTimeout(() => closeConnections(false), STOP_TIMEOUT_MS).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // A cluster worker: the primary says when to stop, and a vanished primary means stop too.
  process.on('message', message => {
    if (message === 'stop' && !stopping) {
      stop();
    } else if (message === 'force') {
      stopping = true;
      stop();
    }
  });
  process.on('disconnect', () => stopping || stop());

  server.on('error', error => {
    process.stderr.write(`${me}: cannot listen on ${urlHost(options.host)}:${options.port}: ${error.message}\n`);
    process.exit(1);
  });
  server.listen({host: options.host, port: options.port, backlog: options.backlog}, () => {
    const port = server.address().port;
    if (cluster.isWorker) {
      process.send({listening: port});
    } else {
      process.stdout.write(`listening on http://${urlHost(options.host)}:${port}/\n`);
    }
  });
}

// The primary of --cluster: forks one worker per core, prints the ready line once every worker
// listens, restarts a worker that dies while serving, stops them all on a signal.
function primary(program, options) {
  const me = program.name;
  // A driver that cannot run fails here, once, rather than in every worker.
  driverOrExit(me, options.driver);
  const cores = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
  const live = () => Object.keys(cluster.workers).map(id => cluster.workers[id]);
  let listening = 0;
  let ready = false;
  let signals = 0;

  const fork = () => {
    cluster.fork().on('message', message => {
      if (message && message.listening !== undefined && !ready && ++listening === cores) {
        ready = true;
        process.stdout.write(`listening on http://${urlHost(options.host)}:${message.listening}/\n`);
      }
    });
  };
  let failed = false;
  cluster.on('exit', (worker, code, signal) => {
    // Exits once every worker is gone, so that each has been waited for.
    if (signals > 0 || failed) {
      if (live().length === 0) {
        process.exit(failed ? 1 : 0);
      }
      return;
    }
    if (!ready) {
      process.stderr.write(`${me}: a worker failed while starting (exit ${code === null ? signal : code})\n`);
      failed = true;
      const others = live();
      if (others.length === 0) {
        process.exit(1);
      }
      for (const other of others) {
        other.process.kill('SIGKILL');
      }
      return;
    }
    process.stderr.write(`${me}: worker ${worker.process.pid} died (${code === null ? signal : code}); starting another\n`);
    fork();
  });
  const onSignal = () => {
    ++signals;
    const running = live();
    if (running.length === 0) {
      process.exit(0);
    }
    for (const worker of running) {
      if (worker.isConnected()) {
        worker.send(signals === 1 ? 'stop' : 'force');
      } else {
        worker.process.kill('SIGKILL');
      }
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  for (let i = 0; i < cores; ++i) {
    fork();
  }
}

// The command: program {name, title, port}, listener(routes) => (req, res) => ...
function main(program, listener) {
  const options = parseArguments(program, process.argv.slice(2));
  if (!cluster.isWorker && options.cluster) {
    primary(program, options);
  } else {
    serve(program, options, listener);
  }
}

module.exports = {TEXT, NOT_FOUND, NOT_ALLOWED, percentDecode, answer, main};
