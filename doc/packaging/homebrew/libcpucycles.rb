class Libcpucycles < Formula
  desc "Microlibrary for counting CPU cycles"
  homepage "https://cpucycles.cr.yp.to/"
  url "https://cpucycles.cr.yp.to/libcpucycles-20261202.tar.gz"
  # the release tarball's (make dist); it holds this file, so it cannot
  # hold its own checksum: filled in where the formula is published
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license any_of: ["CC0-1.0", "0BSD", "MIT-0", "MIT"]

  def install
    system "./configure", *std_configure_args
    system "make"
    system "make", "install"
  end

  test do
    (testpath/"test.c").write <<~C
      #include <stdio.h>
      #include <cpucycles.h>
      int main(void)
      {
        long long a = cpucycles(), b = cpucycles();
        printf("%s %s\\n", cpucycles_version(), cpucycles_implementation());
        return b < a;
      }
    C
    system ENV.cc, "test.c", "-I#{include}", "-L#{lib}", "-lcpucycles", "-o", "test"
    system "./test"
    assert_match "cpucycles version", shell_output("#{bin}/cpucycles-info")
  end
end
