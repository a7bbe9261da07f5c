class Libcpucycles < Formula
  desc "Microlibrary for counting CPU cycles"
  # Not yet published: the project's own site (.invalid never resolves)
  # and make dist's tarball there, whose checksum is filled in where the
  # formula is published (the tarball holds this file, so not here)
  homepage "https://libcpucycles.invalid/"
  url "https://libcpucycles.invalid/libcpucycles-20261207.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  # LicenseRef-PD-hp OR CC0-1.0 OR 0BSD OR MIT-0 OR MIT: Homebrew spells
  # the public-domain part :public_domain
  license any_of: [:public_domain, "CC0-1.0", "0BSD", "MIT-0", "MIT"]

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
    assert_equal "cpucycles-open #{version}\n", shell_output("#{bin}/cpucycles-open --version")
  end
end
