'use strict';
// The blog's /html and /json workload on a MySQL driver (npm mysql, or mysql-native, the post's
// other driver, on Node.js 4), shared by node-server, express-server and standalone.js. Every
// body is byte for byte what the C++ servers send (common/render.cpp). Written for Node.js 4 as
// well as today's (no destructuring, spread, default parameters or ??), as servers/node4/node
// runs it there.

const path = require('path');

// Where the drivers are: servers/node4/node points Node.js 4 at its own packages.
const PACKAGES = process.env.MODELBENCH_NODE_PACKAGES || path.join(__dirname, 'node_modules');

const PRODUCTS_QUERY = 'SELECT id, name, price FROM products ORDER BY id';
const ORDERS_QUERY = 'SELECT id, placed, note FROM orders ORDER BY id';

const PAGE_HEAD =
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Sample database</title></head>' +
    '<body>\n<h1>Products</h1>\n<table>\n<thead><tr><th>id</th><th>name</th><th>price</th></tr>' +
    '</thead>\n<tbody>\n';
const PAGE_MIDDLE =
    '</tbody>\n</table>\n<h1>Orders</h1>\n<table>\n<thead><tr><th>id</th><th>placed</th>' +
    '<th>note</th></tr></thead>\n<tbody>\n';
const PAGE_TAIL = '</tbody>\n</table>\n</body></html>\n';
const HTML_ESCAPES = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;'};

// Database flags and the MySQL client environment variables they fall back to, as the C++
// servers read them.
const DB_SETTINGS = [
  {flag: '--db-host HOST', what: 'database host', env: 'MYSQL_HOST', key: 'host', fallback: '127.0.0.1'},
  {flag: '--db-port PORT', what: 'database TCP port', env: 'MYSQL_TCP_PORT', key: 'port', fallback: '3307'},
  {flag: '--db-socket PATH', what: 'unix socket; when set, used instead of TCP', env: 'MYSQL_UNIX_PORT',
   key: 'socketPath', fallback: ''},
  {flag: '--db-user USER', what: 'database user', env: 'MYSQL_USER', key: 'user', fallback: 'bench'},
  {flag: '--db-password PW', what: 'database password', env: 'MYSQL_PWD', key: 'password', fallback: 'bench'},
  {flag: '--db-name NAME', what: 'database name', env: 'MYSQL_DATABASE', key: 'database', fallback: 'sampledb'},
];

function dbDefaults() {
  const settings = {};
  for (const s of DB_SETTINGS) {
    const value = process.env[s.env];
    // An empty variable is unset, but for the password, which may be empty.
    settings[s.key] = value === undefined || (value === '' && s.key !== 'password') ? s.fallback : value;
  }
  return settings;
}

// text with fill before it up to width (String's padStart is Node.js 8's).
function padded(text, width, fill) {
  return fill.repeat(Math.max(0, width - text.length)) + text;
}

function dbFlagHelp() {
  return DB_SETTINGS.map(s => `  ${s.flag}${padded('', 22 - s.flag.length, ' ')} ${s.what} [${s.env}]` +
                                (s.fallback ? ` (default ${s.fallback})` : '')).join('\n');
}

const DRIVERS = ['mysql', 'mysql-native'];

// Where an exception was thrown, relative to this directory: "node_modules/x/y.js:25".
function thrownAt(error) {
  const frame = /\(?(\/[^():]+):(\d+):\d+\)?$/m.exec(String(error.stack).split('\n').slice(1).join('\n'));
  return frame ? `${path.relative(__dirname, frame[1])}:${frame[2]}` : 'unknown place';
}

// The driver: {name, createPool(options)}, or an Error that says why it cannot run here.
// mysql-native 0.4.7, its last release, runs on Node.js 4 only (docs/real-systems.md says why),
// so servers/node has no copy of it and servers/node4 has.
function loadDriver(name) {
  if (DRIVERS.indexOf(name) < 0) {
    throw new Error(`no such driver '${name}' (${DRIVERS.join(', ')})`);
  }
  let driver;
  try {
    driver = require(path.join(PACKAGES, name));
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(path.join(PACKAGES, name))) {
      throw new Error(`the npm package ${name} is not in ${PACKAGES} for Node.js ${process.version}` +
                      (name === 'mysql-native' ? ': it runs on Node.js 4, servers/node4/node' :
                       ': run scripts/deps.sh'));
    }
    const code = error.code ? ` [${error.code}]` : '';
    throw new Error(`require('${name}') failed on Node.js ${process.version}: ` +
                    `${error.name}${code}: ${error.message} (at ${thrownAt(error)})`);
  }
  return {name, createPool: name === 'mysql' ? driver.createPool : options => nativePool(driver, options)};
}

// mysql-native's field types and flags (its constants.js) that textRow and nativePool read.
const DECIMAL = 246;  // MYSQL_TYPE_NEWDECIMAL
const VAR_STRING = 253;
const NOT_NULL = 1;

// mysql-native has no pool and no callbacks: this gives it the mysql pool's query(sql, callback),
// getConnection and end over connectionLimit clients, each query going to the next client in
// turn (a client runs its queries one after the other, in order). A failed login or a lost
// connection fails that client's queries with a fatal error, as the mysql driver's do.
function nativePool(driver, options) {
  const clients = [];
  let next = 0;
  const connect = () => {
    const client = options.socketPath ? driver.createUNIXClient(options.socketPath) :
        driver.createTCPClient(options.host, options.port);
    const pending = new Set();  // each query's done(error, rows)
    const failAll = error => {
      client.broken = error;
      error.fatal = true;
      pending.forEach(done => done(error));
    };
    client.on('error', failAll);
    client.on('close', () => client.broken || failAll(new Error('connection to the database lost')));
    client.auth(options.database, options.user, options.password).on('error', failAll);
    // utf8mb4 for what the rows bring; the handshake's latin1 is fixed in the driver.
    client.query('SET NAMES utf8mb4').on('error', failAll);
    client.run = (sql, callback) => {
      if (client.broken) {
        callback(client.broken);
        return;
      }
      const rows = [];
      const done = (error, result) => {
        if (pending.delete(done)) {
          callback(error, result);
        }
      };
      pending.add(done);
      client.query(sql)
          // A DECIMAL kept as the server's text, as the mysql pool's bigNumberStrings does.
          .on('field', field => { field.type = field.type === DECIMAL ? VAR_STRING : field.type; })
          .on('row', (row, fields) => rows.push(textRow(row, fields)))
          .on('error', error => done(error))
          .on('end', () => done(null, rows));
    };
    return client;
  };
  const client = () => {
    next = (next + 1) % options.connectionLimit;
    if (!clients[next] || clients[next].broken) {
      clients[next] = connect();
    }
    return clients[next];
  };
  return {
    query: (sql, callback) => client().run(sql, callback),
    getConnection: callback => {
      const chosen = client();
      callback(null, {query: chosen.run, release: () => {}});
    },
    end: callback => {
      clients.forEach(c => c.broken || c.close());
      callback();
    },
  };
}

// A row of mysql-native's as the mysql pool gives it: its text (binary strings, a character per
// byte) decoded as UTF-8, ill-formed bytes as U+FFFD as the mysql driver does; and NULL, which
// the driver reads as '' (its length reader has no case for NULL), as null in a nullable column:
// sampledb holds no empty text, so only a NULL is '' there.
function textRow(row, fields) {
  fields.forEach(field => {
    const value = row[field.name];
    if (typeof value === 'string') {
      row[field.name] = value === '' && !(field.flags & NOT_NULL) ? null :
          new Buffer(value, 'binary').toString('utf8');
    }
  });
  return row;
}

// The pool as the post used it: connectionLimit 10, the driver's defaults otherwise, except what
// the same bytes need: utf8mb4 (the driver's default utf8 turns sampledb's emoji into '?'), and
// dates and decimals as the server's text (by default a date becomes a Date object and a decimal
// a Number, 12.90 printing as 12.9). driver: what loadDriver returned.
function createPool(driver, settings) {
  const port = Number(settings.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`bad database port '${settings.port}'`);
  }
  const options = {
    user: settings.user,
    password: settings.password,
    database: settings.database,
    connectionLimit: 10,
    charset: 'utf8mb4',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  };
  if (settings.socketPath) {
    options.socketPath = settings.socketPath;
  } else {
    options.host = settings.host;
    options.port = port;
  }
  return driver.createPool(options);
}

function sleepQuery(delayMs) {
  return `SELECT SLEEP(${Math.floor(delayMs / 1000)}.${padded(String(delayMs % 1000), 3, '0')})`;
}

// One query on a pool connection; with delayMs > 0 that connection first runs SELECT SLEEP, the
// emulated slow database of ?delay_ms=.
function query(pool, sql, delayMs, callback) {
  if (delayMs === 0) {
    pool.query(sql, callback);
    return;
  }
  pool.getConnection((error, connection) => {
    if (error) {
      callback(error);
      return;
    }
    connection.query(sleepQuery(delayMs), error => {
      if (error) {
        connection.release();
        callback(error);
        return;
      }
      connection.query(sql, (error, rows) => {
        connection.release();
        callback(error, rows);
      });
    });
  });
}

function htmlCell(value) {
  if (value === null) {
    return '';
  }
  const text = String(value);
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, c => HTML_ESCAPES[c]) : text;
}

function htmlRows(rows, columns) {
  let out = '';
  for (const row of rows) {
    out += '<tr><td>' + htmlCell(row[columns[0]]) + '</td><td>' + htmlCell(row[columns[1]]) +
        '</td><td>' + htmlCell(row[columns[2]]) + '</td></tr>\n';
  }
  return out;
}

// /html: both queries fired at once, the page rendered when both have answered, as the post's
// script did. callback(error, page).
function htmlPage(pool, delayMs, callback) {
  let products = null;
  let orders = null;
  let failed = false;
  const done = () => {
    if (products !== null && orders !== null) {
      callback(null, PAGE_HEAD + htmlRows(products, ['id', 'name', 'price']) + PAGE_MIDDLE +
                         htmlRows(orders, ['id', 'placed', 'note']) + PAGE_TAIL);
    }
  };
  const answered = setter => (error, rows) => {
    if (failed) {
      return;
    }
    if (error) {
      failed = true;
      callback(error);
      return;
    }
    setter(rows);
    done();
  };
  query(pool, PRODUCTS_QUERY, delayMs, answered(rows => { products = rows; }));
  query(pool, ORDERS_QUERY, delayMs, answered(rows => { orders = rows; }));
}

// /json: the orders table as an array of {"id","note","placed"} objects, keys in that order.
// The driver decodes text as Node's UTF-8 decoder does, ill-formed bytes as U+FFFD each maximal
// ill-formed subsequence, as the C++ servers' JSON writer.
function ordersJson(pool, delayMs, callback) {
  query(pool, ORDERS_QUERY, delayMs, (error, rows) => {
    if (error) {
      callback(error);
      return;
    }
    callback(null, JSON.stringify(rows.map(r => ({id: r.id, note: r.note, placed: r.placed}))));
  });
}

// n! in decimal, in base 10^9 limbs, least significant first, as common/pages/factorial.cpp
// (Node.js 4 has no BigInt); a limb times n <= 20000 stays well within a double's 2^53.
function factorial(n) {
  const BASE = 1e9;
  const limbs = [1];
  for (let k = 2; k <= n; ++k) {
    let carry = 0;
    for (let i = 0; i < limbs.length; ++i) {
      const product = limbs[i] * k + carry;
      limbs[i] = product % BASE;
      carry = Math.floor(product / BASE);
    }
    if (carry > 0) {
      limbs.push(carry);
    }
  }
  const digits = limbs.map((limb, i) => i === limbs.length - 1 ? String(limb) : padded(String(limb), 9, '0'));
  return `${n}! = ${digits.reverse().join('')}\n`;
}

module.exports = {DB_SETTINGS, DRIVERS, dbDefaults, dbFlagHelp, loadDriver, createPool, htmlPage, ordersJson, factorial};
