'use strict';
// The blog's /html and /json workload on a MySQL driver (npm mysql; mysql-native, the post's
// other driver, is tried and fails on this Node.js, see loadDriver), shared by node-server,
// express-server and standalone.js. Every body is byte for byte what the C++ servers send
// (common/render.cpp).

const path = require('node:path');

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

function dbFlagHelp() {
  return DB_SETTINGS.map(s => `  ${s.flag.padEnd(22)} ${s.what} [${s.env}]` +
                                (s.fallback ? ` (default ${s.fallback})` : '')).join('\n');
}

const DRIVERS = ['mysql', 'mysql-native'];

// Where an exception was thrown, relative to this directory: "node_modules/x/y.js:25".
function thrownAt(error) {
  const frame = /\(?(\/[^():]+):(\d+):\d+\)?$/m.exec(String(error.stack).split('\n').slice(1).join('\n'));
  return frame ? `${path.relative(__dirname, frame[1])}:${frame[2]}` : 'unknown place';
}

// The driver's module, or an Error that says why it cannot run here. mysql-native 0.4.7, its
// last release, does not load on the Node.js this project runs: its command.js calls
// util.inherits(cmd, process.EventEmitter), and process.EventEmitter is gone; the require
// throws, and so does this (docs/real-systems.md: what fails after that).
function loadDriver(name) {
  if (!DRIVERS.includes(name)) {
    throw new Error(`no such driver '${name}' (${DRIVERS.join(', ')})`);
  }
  let driver;
  try {
    driver = require(name);
  } catch (error) {
    if (error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(`'${name}'`)) {
      throw new Error(`the npm package ${name} is missing: run scripts/deps.sh (npm ci in servers/node)`);
    }
    const code = error.code ? ` [${error.code}]` : '';
    throw new Error(`require('${name}') failed on Node.js ${process.version}: ` +
                    `${error.name}${code}: ${error.message} (at ${thrownAt(error)})`);
  }
  if (name !== 'mysql') {
    // Only a Node.js that still has process.EventEmitter gets here; this server has no pool for it.
    throw new Error(`${name} loaded, but this server has no pool for it on Node.js ${process.version}`);
  }
  return {name, createPool: driver.createPool};
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
  return `SELECT SLEEP(${Math.floor(delayMs / 1000)}.${String(delayMs % 1000).padStart(3, '0')})`;
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

function factorial(n) {
  let product = 1n;
  for (let k = 2n; k <= BigInt(n); ++k) {
    product *= k;
  }
  return `${n}! = ${product}\n`;
}

module.exports = {DB_SETTINGS, DRIVERS, dbDefaults, dbFlagHelp, loadDriver, createPool, htmlPage, ordersJson, factorial};
