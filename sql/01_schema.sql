-- The sample database: two tables of 300 rows each, as in the "Node.js vs PHP+Apache" post.
-- Columns are few and short so that both tables rendered as HTML come to about 31 KB.
CREATE DATABASE IF NOT EXISTS sampledb CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
USE sampledb;

DROP TABLE IF EXISTS products;
CREATE TABLE products (
    id    INT UNSIGNED  NOT NULL PRIMARY KEY,
    name  VARCHAR(64)   NOT NULL,
    price DECIMAL(8, 2) NOT NULL
) ENGINE = InnoDB;

DROP TABLE IF EXISTS orders;
CREATE TABLE orders (
    id     INT UNSIGNED NOT NULL PRIMARY KEY,
    placed DATE         NOT NULL,
    note   TEXT         NULL      -- long free text, NULL for most orders
) ENGINE = InnoDB;
