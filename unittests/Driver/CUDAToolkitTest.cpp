//===- CUDAToolkitTest.cpp - the toolkit search of --target=cuda ----------===//
//
// findCUDAToolkit picks the toolkit whose ptxas and libdevice the CUDA
// pipeline uses. Each test builds stand-in directories and sets CUDA_HOME and
// PATH, restoring them afterwards.
//
//===----------------------------------------------------------------------===//

#include "onnxc/Driver/Pipelines.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>
#include <string>

using namespace mlir::onnxc;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

/// Sets an environment variable (unsets it for std::nullopt) for the
/// lifetime of the object.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

class CUDAToolkitTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("onnxc-cuda-toolkit", root));
  }
  void TearDown() override { fs::remove_directories(root); }

  std::string dir(llvm::StringRef name) {
    llvm::SmallString<256> p(root);
    path::append(p, name);
    return std::string(p);
  }
  /// Writes an executable shell script at `file`.
  void writeScript(const std::string &file) {
    ASSERT_FALSE(fs::create_directories(path::parent_path(file)));
    std::error_code ec;
    {
      llvm::raw_fd_ostream os(file, ec);
      ASSERT_FALSE(ec);
      os << "#!/bin/sh\nexit 0\n";
    }
    ASSERT_FALSE(fs::setPermissions(file, fs::all_read | fs::all_exe |
                                              fs::owner_write));
  }
  /// A stand-in toolkit: bin/ptxas and nvvm/libdevice/libdevice.10.bc.
  std::string makeToolkit(llvm::StringRef name, bool libdevice = true) {
    std::string top = dir(name);
    writeScript(top + "/bin/ptxas");
    if (libdevice) {
      EXPECT_FALSE(fs::create_directories(top + "/nvvm/libdevice"));
      std::error_code ec;
      llvm::raw_fd_ostream os(top + "/nvvm/libdevice/libdevice.10.bc", ec);
      EXPECT_FALSE(ec);
    }
    return top;
  }

  llvm::SmallString<256> root;
  ScopedEnv root1{"CUDA_ROOT", std::nullopt};
  ScopedEnv path1{"CUDA_PATH", std::nullopt};
};

TEST_F(CUDAToolkitTest, AcceptsOnlyDirectoriesWithPtxasAndLibdevice) {
  EXPECT_TRUE(isCUDAToolkit(makeToolkit("full")));
  EXPECT_FALSE(isCUDAToolkit(makeToolkit("nolibdevice", false)));
  EXPECT_FALSE(isCUDAToolkit(dir("missing")));
  EXPECT_FALSE(isCUDAToolkit(""));
}

TEST_F(CUDAToolkitTest, CUDAHomeComesFirst) {
  std::string home = makeToolkit("home");
  std::string onPath = makeToolkit("onpath");
  ScopedEnv cudaHome("CUDA_HOME", home);
  ScopedEnv pathEnv("PATH", onPath + "/bin");
  EXPECT_EQ(findCUDAToolkit(), home);
}

// A ptxas wrapper script outside a toolkit (/usr/local/bin/ptxas running the
// toolkit's) must not make its parent (/usr/local) the toolkit: the search
// goes on to the toolkit of the next candidate.
TEST_F(CUDAToolkitTest, PtxasWrapperOnPathIsNotAToolkit) {
  writeScript(dir("local/bin/ptxas"));
  std::string real = makeToolkit("cuda-real");
  ScopedEnv cudaHome("CUDA_HOME", std::nullopt);
  {
    ScopedEnv pathEnv("PATH", dir("local/bin"));
    std::string found = findCUDAToolkit();
    EXPECT_NE(found, dir("local"));
    EXPECT_TRUE(found.empty() || isCUDAToolkit(found)) << found;
  }
  {
    ScopedEnv pathEnv("PATH", dir("local/bin") + ":" + real + "/bin");
    // The wrapper is found first on PATH and names no toolkit.
    std::string found = findCUDAToolkit();
    EXPECT_NE(found, dir("local"));
  }
  {
    ScopedEnv pathEnv("PATH", real + "/bin");
    EXPECT_EQ(findCUDAToolkit(), real);
  }
}

TEST_F(CUDAToolkitTest, CUDAHomeWithoutLibdeviceIsSkipped) {
  std::string broken = makeToolkit("broken", false);
  std::string onPath = makeToolkit("onpath");
  ScopedEnv cudaHome("CUDA_HOME", broken);
  ScopedEnv pathEnv("PATH", onPath + "/bin");
  EXPECT_EQ(findCUDAToolkit(), onPath);
}

} // namespace
