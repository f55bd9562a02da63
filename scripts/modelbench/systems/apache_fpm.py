"""apache-fpm: E3's Apache 2.4 with PHP-FPM (servers/php/apache-fpm-server): mpm_event, the MPM
Debian runs with FPM, and mod_proxy_fcgi to a PHP-FPM pool on the same PHP pages as php."""

from modelbench.systems.base import System, apache_version, first_line

SYSTEM = System(
    name="apache-fpm", title="Apache + PHP-FPM", side="blocking", real=True, port=8087,
    needs=("apache", "fpm", "db"), files_flag="--dir",
    launcher=lambda checkout: [checkout.real_system("php", "apache-fpm-server")],
    version=lambda checkout: f"{apache_version()} mpm_event with PHP-FPM, "
                             f"{first_line(['php-fpm8.2', '-v'], 'PHP')}")
