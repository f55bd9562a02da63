-- The servers connect as a read-only user: SELECT on the sample database and nothing else.
-- 'localhost' covers the unix socket, '127.0.0.1' TCP on this machine. scripts/db.sh adds the
-- network of DB_ALLOW when the database serves other hosts, and drops any other host of the user.
CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench';
CREATE USER IF NOT EXISTS 'bench'@'127.0.0.1' IDENTIFIED BY 'bench';
GRANT SELECT ON sampledb.* TO 'bench'@'localhost';
GRANT SELECT ON sampledb.* TO 'bench'@'127.0.0.1';
