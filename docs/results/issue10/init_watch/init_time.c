#include <loom/loom.h>
#include <stdio.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){double t0=now();if(loom_init(&argc,&argv,NULL)!=LOOM_OK)return 1;double t1=now();
if(loom_rank()==0)printf("init_s %.6f\n",t1-t0);loom_finalize();return 0;}
