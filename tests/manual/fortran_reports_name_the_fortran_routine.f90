! SPDX-License-Identifier: BSD-3-Clause
! Errors and hang reports of a Fortran program name the routine as the
! program called it (SHMEM_INT4_WAIT_UNTIL), not the C routine its wrapper
! calls (shmem_int32_wait_until).
!
! "wait" (run with SHMEM_HANG_REPORT=1): PE 1 waits for a flag that PE 0
! sets after computing 2.5 s; then the other PEs wait in SHMEM_BARRIER_ALL
! while PE 0 computes 2.5 s more. Both waits are reported (checked by the
! manifest), and the program ends normally with "OK" from PE 0.
! "bad-pe": SHMEM_INTEGER_PUT to PE n_pes must end the job with a line
! naming SHMEM_INTEGER_PUT.
program fortran_reports_name_the_fortran_routine
  implicit none
  include 'shmem.fh'
  integer :: flag, dest(4)
  common /handoff/ flag, dest
  integer :: src(4), one(1), me, npes, shmem_my_pe, shmem_n_pes
  character(len=16) :: arg

  call shmem_init()
  me = shmem_my_pe()
  npes = shmem_n_pes()
  call get_command_argument(1, arg)
  flag = 0
  dest = 0
  src = me
  one = 1
  call shmem_barrier_all()
  if (arg == 'bad-pe') then
    if (me == 0) call shmem_integer_put(dest(1), src(1), 4, npes)
    call shmem_barrier_all()
    if (me == 0) write (0, '(a)') 'TEST FAILURE: SHMEM_INTEGER_PUT to PE n_pes returned'
  else
    if (me == 0) then
      call compute(2.5)
      call shmem_integer_put(flag, one(1), 1, 1)
      call shmem_quiet()
      call compute(2.5)
    else if (me == 1) then
      call shmem_int4_wait_until(flag, SHMEM_CMP_EQ, 1)
    end if
    call shmem_barrier_all()
    if (me == 1 .and. flag /= 1) then
      write (0, '(a, i0)') 'PE 1: FAIL flag after the wait = ', flag
      call shmem_global_exit(1)
    end if
    if (me == 0) write (6, '(a)') 'OK'
  end if
  call shmem_finalize()

contains

  ! Busy for `seconds` of wall-clock time, outside the library.
  subroutine compute(seconds)
    real, intent(in) :: seconds
    integer(8) :: t0, t, rate

    call system_clock(t0, rate)
    do
      call system_clock(t)
      if (real(t - t0) / real(rate) >= seconds) exit
    end do
  end subroutine compute

end program fortran_reports_name_the_fortran_routine
