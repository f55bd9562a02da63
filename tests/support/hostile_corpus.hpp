// The hostile request corpus of tests/hostile/: each file's bytes and the outcome expected.txt
// demands. Read by the parser-level test and the server-level test alike.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mb::test {

struct CorpusCase {
    std::string file;
    std::string expected;  // a status code, or "close"
    std::string bytes;
};

inline std::vector<CorpusCase> load_hostile_corpus() {
    const std::string dir = std::string(MODELBENCH_SOURCE_DIR) + "/tests/hostile/";
    std::ifstream manifest(dir + "expected.txt");
    std::vector<CorpusCase> cases;
    std::string line;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        CorpusCase c;
        fields >> c.file >> c.expected;
        std::ifstream in(dir + c.file, std::ios::binary);
        std::stringstream bytes;
        bytes << in.rdbuf();
        c.bytes = bytes.str();
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace mb::test
