! SPDX-License-Identifier: BSD-3-Clause
! Prints the storage sizes (bytes) of the default Fortran types, of a C
! pointer (a Cray pointer has that size) and of REAL*16 (0 if the compiler
! has no 16-byte REAL), as the generator's --fortran-sizes expects them.
! meson runs this at setup time, so no size is assumed.
program shoal_fortran_sizes
  use iso_c_binding, only: c_intptr_t
  implicit none
  integer :: i
  real :: r
  double precision :: d
  logical :: l
  complex :: c
  integer(c_intptr_t) :: p
  integer, parameter :: q = selected_real_kind(33, 4931)
  integer :: q_bytes

  q_bytes = 0
  if (q > 0) q_bytes = 16
  write (*, '(7(a,i0))') 'integer=', storage_size(i) / 8, ',real=', storage_size(r) / 8, &
      ',double=', storage_size(d) / 8, ',logical=', storage_size(l) / 8, &
      ',complex=', storage_size(c) / 8, ',pointer=', storage_size(p) / 8, ',real16=', q_bytes
end program shoal_fortran_sizes
